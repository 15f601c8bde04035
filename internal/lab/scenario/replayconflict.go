package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// replayConflict: the standby's replay waits for a query whose snapshot
// still sees the row versions a vacuum on the publisher removed.
var replayConflict = Scenario{
	Recipe: lab.Recipe{Name: "replay-conflict", Summary: "the publisher's physical standby (max_standby_streaming_delay = -1, hot_standby_feedback off) has a session (lab-snapshot-holder) holding a REPEATABLE READ snapshot of hot while the publisher updates and vacuums hot under the 16-client load: replay waits for the session without limit",
		Layout: lab.Flat,
		Steps:  []lab.Step{lab.WithStandby(lab.StandbyOptions{MaxStandbyStreamingDelay: "-1"}), lab.HoldStandbySnapshot, lab.FullLoad},
		Drains: true},
	Physical: true,
	Expect: Expect{Verdict: model.ReplayConflict,
		Check: func(r *lab.Result) []string {
			var p problems
			sr := standbyMeasured(&p, r)
			if sr == nil {
				return p
			}
			if w := sr.Startup.Share("RecoveryConflictSnapshot"); w < 0.9 {
				p.add("the startup process waited on RecoveryConflictSnapshot in %.0f%% of its probes (%v); want >= 90%%", 100*w, sr.Startup.WaitShares)
			}
			if sr.Holder == nil || sr.Holder.PID == 0 || sr.Holder.BackendStart.IsZero() || !sr.HolderAlive {
				p.add("snapshot holder %+v (still there: %t); want its pid and backend_start, alive at the end", sr.Holder, sr.HolderAlive)
			}
			checkReplayBehindAndGrowing(&p, sr)
			checkStandbyData(&p, r)
			return p
		},
		Diagnosis: namesTheHolder},
}

// namesTheHolder: the cause names the session the lab made hold the
// snapshot, by its pid, and says when max_standby_streaming_delay cancels
// it: never, at the scenario's -1.
func namesTheHolder(d Diagnosed) []string {
	if d.Physical == nil || d.Lab == nil || d.Lab.Standby == nil || d.Lab.Standby.Holder == nil {
		return []string{"no physical path or no snapshot holder measured by the lab"}
	}
	var out []string
	text := d.Physical.Cause + " " + strings.Join(model.EvidenceTexts(d.Physical.Evidence), " ")
	if pid := strconv.Itoa(d.Lab.Standby.Holder.PID); !strings.Contains(text, "pid "+pid) {
		out = append(out, fmt.Sprintf("the diagnosis does not name the holder's pid %s: %q", pid, text))
	}
	if !strings.Contains(text, "never cancels") {
		out = append(out, fmt.Sprintf("the diagnosis does not say that replay never cancels the holder (max_standby_streaming_delay = -1): %q", text))
	}
	return out
}
