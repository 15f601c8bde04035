package scenario

import (
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// caughtUp: the subscriber keeps up with a light load.
var caughtUp = Scenario{
	Recipe: lab.Recipe{Name: "caught-up", Summary: "a light load the subscriber keeps up with",
		Layout: lab.Flat, Steps: []lab.Step{lab.LightLoad, lab.Enable}, Drains: true},
	Expect: Expect{Verdict: model.CaughtUp, Recorded: "a light rate-limited load the subscriber keeps up with",
		Check: func(r *lab.Result) []string {
			var p problems
			if r.Lag.Total > 16<<20 || r.GeneratedMBps <= 0 {
				p.add("lag %d bytes at %.2f MB/s generated; want a small lag under real load", r.Lag.Total, r.GeneratedMBps)
			}
			checkData(&p, r)
			return p
		}},
}
