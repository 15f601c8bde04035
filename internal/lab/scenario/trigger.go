package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
)

// diagnosedTrigger wants the trigger named with what the apply worker did
// in it (did), its ALTER TABLE ... ENABLE TRIGGER first, and none of the
// remedies the setup rules out.
func diagnosedTrigger(pa report.Path, did string) []string {
	var p problems
	if !strings.Contains(pa.Cause, "Trigger "+lab.TriggerName) || !strings.Contains(pa.Cause, did) {
		p.add("cause %q, want trigger %s named with what the apply worker did in it (%s)", pa.Cause, lab.TriggerName, did)
	}
	if len(pa.Helps) == 0 || !strings.Contains(pa.Helps[0].Said(), "ENABLE TRIGGER "+lab.TriggerName) {
		p.add("helps %q, want the trigger's ALTER TABLE ... ENABLE TRIGGER first", pa.Helps)
	}
	for _, h := range model.Texts(pa.Helps) {
		for _, wrong := range []string{"disk", "indexes", "replica identity", "binary = true"} {
			if strings.Contains(h, wrong) {
				p.add("help %q: the setup rules it out (the trigger is the cause; no extra index, no FULL identity)", h)
			}
		}
	}
	return p
}
