package scenario

import (
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/sample"
)

// disabledOnError: conflict-exists' insert of a key the subscriber already
// has, with the subscription's disable_on_error = true (15+): the first
// apply error disables the subscription, and enabling it alone fails again
// at the same transaction.
var disabledOnError = Scenario{
	Recipe: lab.Recipe{Name: "disabled-on-error", Summary: "conflict-exists' key taken on the subscriber ahead of a backlog, with disable_on_error = true: the apply error disables the subscription (15+)",
		Layout: lab.Flat, MinMajor: 15, Needs: "the subscription option disable_on_error",
		Steps: []lab.Step{lab.TakeKey, lab.DisableOnError, lab.Backlog(0.3), lab.EnableNoWait, lab.WaitDisabled}},
	Expect: Expect{Verdict: model.Stalled, OnceBefore18: true, EveryVersion: conflictsCounted, ApplyErrors: "insert_exists",
		Check: func(r *lab.Result) []string {
			var p problems
			// Stopped at the insert: nothing of the backlog behind it applied.
			checkNothingApplied(&p, r)
			if n := ticksWhere(r, func(tk sample.Tick) bool {
				for _, s := range tk.Read(sample.SubscriberNode).Subs {
					if s.Enabled || s.ApplyErrors == 0 {
						return false
					}
				}
				return true
			}); n < len(r.Recording.Ticks)/2 {
				p.add("%d of %d ticks saw every subscription disabled with an apply error counted; want most", n, len(r.Recording.Ticks))
			}
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			var p problems
			diagnosedDisabledByError(&p, d)
			return p
		}},
}

// diagnosedDisabledByError wants the error named in the cause and its
// remedies before the subscription is enabled: the first remedy is not
// ENABLE, and ENABLE comes after the skip.
func diagnosedDisabledByError(p *problems, d Diagnosed) {
	c := d.Path.Verdict.Cause
	if !strings.Contains(c, "apply_error_count") {
		p.add("cause %q, want the apply error counted", c)
	}
	if d.Version.Major >= 18 && !strings.Contains(c, "insert_exists") {
		p.add("cause %q, want the conflict kind insert_exists named on %s", c, d.Version)
	}
	helps := d.Path.Verdict.Helps
	enable, skip := -1, -1
	for i, a := range helps {
		for _, st := range a.Run {
			if strings.HasPrefix(st.Text, "ALTER SUBSCRIPTION ") && strings.HasSuffix(st.Text, " ENABLE;") && enable < 0 {
				enable = i
			}
		}
		if a.Key == model.KeySkipFailedTxn && skip < 0 {
			skip = i
		}
	}
	switch {
	case len(helps) == 0:
		p.add("no remedies; want the error's first")
	case helps[0].Key == model.KeyFixStop || enable == 0:
		p.add("first remedy %q enables the subscription; want the error's first", helps[0].Text)
	case skip < 0 || enable < 0 || enable < skip:
		p.add("remedies %v: want the skip (at %d) before ENABLE (at %d)", keysOf(helps), skip, enable)
	default:
		d.logf("disabled by an apply error on %s: %s; first remedy %s", d.Version, c, helps[0].Key)
	}
}

// keysOf lists the remedies' keys.
func keysOf(advice []model.Advice) []model.RemedyID {
	out := make([]model.RemedyID, len(advice))
	for i, a := range advice {
		out[i] = a.Key
	}
	return out
}
