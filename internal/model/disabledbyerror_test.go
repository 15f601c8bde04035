package model

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// errorFirst fails unless helps find the error first, skip or fix it next
// and enable the subscription (by its quoted name) last, never before.
func errorFirst(t *testing.T, helps []Advice, ident string) {
	t.Helper()
	keys := make([]RemedyID, len(helps))
	for i, a := range helps {
		keys[i] = a.Key
	}
	find, skip, enable := slices.Index(keys, KeyFindApplyError), slices.Index(keys, KeySkipFailedTxn), slices.Index(keys, KeyEnableAfterFix)
	if len(helps) == 0 || helps[0].Key != KeyFindApplyError || find > skip || skip > enable || slices.Contains(keys, KeyFixStop) {
		t.Fatalf("remedies %q; want the error found first, skipped or fixed next, the subscription enabled last", keys)
	}
	for i, a := range helps {
		for _, st := range a.Run {
			if strings.HasPrefix(st.Text, "ALTER SUBSCRIPTION ") && strings.HasSuffix(st.Text, " ENABLE;") && i != enable {
				t.Errorf("remedy %d (%s) enables the subscription: %q; only the last may", i, a.Key, st.Text)
			}
		}
	}
	if got := statements(helps[enable : enable+1]); len(got) != 1 || got[0] != "ALTER SUBSCRIPTION "+ident+" ENABLE;" {
		t.Errorf("enable statements %q, want ALTER SUBSCRIPTION %s ENABLE;", got, ident)
	}
	if helps[skip].Run != nil {
		t.Errorf("skip statements %+v: the finish LSN is in the log only, none may be printed", helps[skip].Run)
	}
}

// A subscription disabled with apply errors counted (disable_on_error)
// leads with the error, not with ENABLE, whatever its name: the counters
// in the cause, on 18 the conflict kind that stopped it in the cause and
// the data fix, its counters read by its quoted name, ENABLE last.
func TestASubscriptionDisabledByAnErrorIsToldTheErrorFirst(t *testing.T) {
	rec := load(t, "../classify/testdata/stalled-pg18-diag.json")
	for _, h := range hostile {
		for _, conflicts := range []map[string]int64{nil, {"insert_exists": 3, "update_missing": 7}} {
			t.Run(h.name, func(t *testing.T) {
				r := modify(rec, func(_ int, tk *sample.Tick) {
					s := &tk.Read(sample.SubscriberNode).Subs[0]
					s.Enabled, s.Name, s.ApplyErrors, s.Conflicts = false, h.name, 3, conflicts
				})
				v := Classify(Inputs(r, nil)[0])
				if v.Name != Stalled {
					t.Fatalf("verdict %s, want %s", v.Name, Stalled)
				}
				errorFirst(t, v.Helps, h.ident)
				if !strings.Contains(v.Cause, "subscription "+h.ident+" is disabled after an apply error: apply_error_count is 3") {
					t.Errorf("cause %q: want the subscription and its error count", v.Cause)
				}
				if got := statements(v.Helps[:1]); len(got) != 1 || !strings.Contains(got[0], "FROM pg_stat_subscription_stats WHERE subname = ") {
					t.Errorf("first statements %q: want the subscription's counters", got)
				}
				if conflicts != nil {
					if !strings.Contains(v.Cause, "insert_exists 3") || strings.Contains(v.Cause, "update_missing") {
						t.Errorf("cause %q: want insert_exists named (it stops applying), update_missing not (it is skipped)", v.Cause)
					}
					if !strings.Contains(v.Helps[1].Text, "insert_exists") {
						t.Errorf("skip %q: want insert_exists's data fix", v.Helps[1].Text)
					}
				}
				noStatementIn(t, "disabled by an error "+h.name, append(Texts(v.Helps), v.Cause)...)
			})
		}
	}
	// Disabled without an error counted: enabled, as before.
	v := Classify(Inputs(rec, nil)[0])
	if len(v.Helps) == 0 || v.Helps[0].Key != KeyFixStop {
		t.Errorf("disabled without errors: remedies %q, want enabling it", Texts(v.Helps))
	}
}

// The lab's disabled-on-error state as recorded on 15 and 18 (conflict-
// exists' key with disable_on_error = true): stalled, the error's count in
// the cause (on 18 insert_exists), and with the recording's setup read the
// first remedy is the error's, ENABLE last: the setup's subscription-stopped
// fix, whose statement is ENABLE, does not come first.
func TestTheDisabledOnErrorRecordingsAreToldTheErrorFirst(t *testing.T) {
	for _, c := range []struct {
		name string
		kind string
	}{{"disabled-on-error-pg15-diag", ""}, {"disabled-on-error-pg18-diag", "insert_exists"}} {
		t.Run(c.name, func(t *testing.T) {
			rec, err := recordings.Read("../classify/testdata", c.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Setup) == 0 {
				t.Fatal("the recording has no setup")
			}
			var snaps audit.Snapshots
			if err := json.Unmarshal(rec.Setup, &snaps); err != nil {
				t.Fatal(err)
			}
			if s := snaps.Subscriber.Subscriptions; len(s) != 1 || !s[0].DisableOnError || s[0].Enabled {
				t.Fatalf("setup's subscriptions %+v: want one, disabled, with disable_on_error", s)
			}
			in := Inputs(rec, nil)[0]
			v := Judge(in)
			if v.Name != Stalled {
				t.Fatalf("verdict %s, want %s", v.Name, Stalled)
			}
			says := FromSetup(PathFacts{Slot: in.Slot, Subscription: in.Subscription, Verdict: v, Summary: in.Summary}, SetupRead{Snaps: &snaps, Results: audit.Run(snaps, audit.All)})
			if says.Setup == nil || !slices.ContainsFunc(says.Setup.Fixes, func(a Advice) bool { return a.Key == RemedyID(checkSubscriptionStopped) }) {
				t.Fatalf("setup %+v: want subscription-stopped's fix among its fixes (what the report left out)", says.Setup)
			}
			for _, setup := range []*Setup{nil, says.Setup} {
				e := Explain(v, setup)
				errorFirst(t, e.Helps, "lab_sub")
				if !strings.Contains(e.Cause, "is disabled after an apply error: apply_error_count is ") || !strings.Contains(e.Cause, c.kind) {
					t.Errorf("cause %q: want the apply error counted, and %q", e.Cause, c.kind)
				}
			}
		})
	}
}
