package audit

import (
	"strings"
	"testing"
)

// A subscription disabled after apply errors (disable_on_error) is told
// the error's fix before ENABLE, by both checks that see it: its
// subscription-stopped fix finds and skips the error first and its ENABLE
// says it comes after; apply-errors says enabling first fails again. One
// disabled without errors is still told to enable it.
func TestASubscriptionDisabledByAnErrorIsToldTheErrorFirst(t *testing.T) {
	for _, errs := range []int64{0, 2} {
		s := healthy()
		sub := &s.Subscriber.Subscriptions[0]
		sub.Enabled, sub.Workers, sub.DisableOnError = false, nil, true
		sub.Stats = &SubscriptionStats{ApplyErrors: errs}
		var stopped, applyErrs *Finding
		for _, r := range Run(s, All) {
			for i, f := range r.Findings {
				switch f.Check {
				case string(CheckSubscriptionStopped):
					stopped = &r.Findings[i]
				case string(CheckApplyErrors):
					applyErrs = &r.Findings[i]
				}
			}
		}
		if stopped == nil || len(stopped.Run) != 1 || stopped.Run[0].Text != "ALTER SUBSCRIPTION sub1 ENABLE;" {
			t.Fatalf("%d errors: subscription-stopped %+v, want its ENABLE", errs, stopped)
		}
		if errs == 0 {
			if !strings.HasPrefix(stopped.Fix, "Enable the subscription") || applyErrs != nil {
				t.Errorf("no errors: fix %q, apply-errors %+v; want enabling it, no apply-errors finding", stopped.Fix, applyErrs)
			}
			continue
		}
		fix := stopped.Fix
		find, skip, enable := strings.Index(fix, "Find the error first"), strings.Index(fix, "SKIP"), strings.Index(fix, "enable the subscription")
		if find != 0 || skip < find || enable < skip || !strings.Contains(stopped.Found, "disabled after 2 apply errors") || !strings.Contains(stopped.Run[0].Note, "only after") {
			t.Errorf("found %q, fix %q, note %q: want the error found, skipped or fixed, then enabled", stopped.Found, fix, stopped.Run[0].Note)
		}
		if applyErrs == nil || applyErrs.Severity != Error || !strings.Contains(applyErrs.Found, "It is disabled") {
			t.Errorf("apply-errors %+v: want an error that says the subscription is disabled", applyErrs)
		}
	}
}
