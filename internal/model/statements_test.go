package model

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/sample"
)

// hostile are names another database user may choose, each with the
// identifier lagscope must print for it.
var hostile = []struct{ name, ident string }{
	{"x ENABLE; DROP TABLE users; --", `"x ENABLE; DROP TABLE users; --"`},
	{"Orders", `"Orders"`},
	{"user", `"user"`},
	{"lab_sub", "lab_sub"},
}

// statements are the texts of the statements of advice, in order.
func statements(advice []Advice) []string {
	var out []string
	for _, a := range advice {
		for _, st := range a.Run {
			out = append(out, st.Text)
		}
	}
	return out
}

// noStatementIn fails when prose holds SQL: statements are Run, built by
// the quoting layer, never written into a text.
func noStatementIn(t *testing.T, where string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		for _, sql := range []string{"ALTER SUBSCRIPTION", "SELECT pg_", "pg_drop_replication_slot(", "pg_terminate_backend("} {
			if strings.Contains(s, sql) {
				t.Errorf("%s: prose holds %q: %q", where, sql, s)
			}
		}
	}
}

// A disabled subscription's advice enables exactly that subscription,
// whatever its name: quoted as quote_ident would, and the cause is prose.
func TestADisabledSubscriptionIsEnabledByItsQuotedName(t *testing.T) {
	busy := load(t, "../classify/testdata/apply-bound-pg15-lab.json")
	for _, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			rec := modify(busy, func(_ int, tk *sample.Tick) {
				tk.Read(sample.SubscriberNode).Subs[0].Enabled, tk.Read(sample.SubscriberNode).Subs[0].Name = false, h.name
			})
			v := Classify(Inputs(rec, nil)[0])
			want := "ALTER SUBSCRIPTION " + h.ident + " ENABLE;"
			if v.Name != Stalled || len(v.Helps) == 0 || v.Helps[0].Key != KeyFixStop {
				t.Fatalf("verdict %s, helps %+v; want stalled, enabling the subscription first", v.Name, v.Helps)
			}
			if got := v.Helps[0].Run; len(got) != 1 || got[0].Text != want || got[0].On != "subscriber" || got[0].Kind != quote.SQLKind {
				t.Errorf("statements %+v, want %q on the subscriber", got, want)
			}
			if !strings.Contains(v.Cause, "subscription "+h.ident+" is disabled") {
				t.Errorf("cause %q does not name %s", v.Cause, h.ident)
			}
			noStatementIn(t, "disabled "+h.name, append(Texts(v.Helps), v.Cause)...)
		})
	}
}

// A remedy that sets a subscription option carries its statement when the
// pair's setup names the subscription, quoted; without, it is prose only.
func TestAnOptionRemedyCarriesItsStatementOnlyForAKnownSubscription(t *testing.T) {
	cases := []struct {
		name, sub string
		want      []string
	}{
		{"a subscription named Orders is quoted", "Orders", []string{`ALTER SUBSCRIPTION "Orders" SET (synchronous_commit = off);`}},
		{"a subscription named like a statement stays one identifier", "x ENABLE; DROP TABLE users; --", []string{`ALTER SUBSCRIPTION "x ENABLE; DROP TABLE users; --" SET (synchronous_commit = off);`}},
		{"no setup read gives prose only", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var setup *Setup
			if c.sub != "" {
				setup = &Setup{Subscription: c.sub}
			}
			v := Explain(Verdict{Name: SubscriberWaits, d: diagnosis{fill: FillSyncRep, sub: "observed_only"}}, setup)
			if got := statements(v.Helps); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("statements %q, want %q", got, c.want)
			}
			noStatementIn(t, c.name, Texts(v.Helps)...)
		})
	}
	// The general refinements of streaming, with a setup.
	v := Explain(Verdict{Name: LargeTransaction, Txn: &LargeTxn{Phase: TxnDecoding}, d: diagnosis{sub: "Orders"}}, &Setup{RuledOut: []RemedyID{KeyStreamingOn}, Subscription: "Orders"})
	if got := strings.Join(statements(v.Helps), "\n"); got != `ALTER SUBSCRIPTION "Orders" SET (streaming = parallel);` {
		t.Errorf("streaming statements %q, want streaming = parallel on \"Orders\"", got)
	}
}

// A blocker is ended only while its pid is still the backend seen (its
// start time); without the start time no statement is printed, and the
// prose says the pid may be another backend now.
func TestEndingABlockerIsGuardedByItsStartTime(t *testing.T) {
	base := measure.Blocker{Session: sample.Session{PID: 4242, AppName: "x'); DROP TABLE users; --"}, WaitEvent: "relation", Ticks: 3}
	with := base
	with.BackendStart = "2026-12-05T08:00:00.123456Z"
	cases := []struct {
		name    string
		b       measure.Blocker
		want    []string
		inProse string
	}{
		{"with its start time, the statement names pid and start", with,
			[]string{"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = 4242 AND backend_start = '2026-12-05T08:00:00.123456Z';"}, "still the backend seen"},
		{"a start time that is not a timestamp stays one literal", measure.Blocker{Session: base.Session, BackendStart: "x'); DROP TABLE users; --"},
			[]string{"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = 4242 AND backend_start = 'x''); DROP TABLE users; --';"}, "still the backend seen"},
		{"from a recording without the start time, no statement", base, nil, "may now be another backend"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Explain(Verdict{Name: SubscriberWaits, Blockers: []Blocker{{c.b}}, d: diagnosis{fill: FillLock}}, nil)
			if len(v.Helps) == 0 || v.Helps[0].Key != KeyEndBlocker {
				t.Fatalf("helps %+v, want ending the blocker first", v.Helps)
			}
			if got := statements(v.Helps); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("statements %q, want %q", got, c.want)
			}
			if !strings.Contains(v.Helps[0].Text, c.inProse) || !strings.Contains(v.Helps[0].Text, "pid 4242") {
				t.Errorf("prose %q, want it to name pid 4242 and say %q", v.Helps[0].Text, c.inProse)
			}
			noStatementIn(t, c.name, Texts(v.Helps)...)
		})
	}
}

// A tablesync slot is a leftover, with a drop, only when its subscription
// was observed showing no copy for it; when the subscription or the
// subscriber was not observed, lagscope says so and drops nothing.
func TestALeftoverTablesyncSlotNeedsItsSubscriptionObserved(t *testing.T) {
	rec := load(t, "../classify/testdata/caught-up-pg16-diag.json")
	const slot = "pg_16399_sync_16390_7300000000000000001"
	withSlot := func(oid int64) *sample.Recording {
		return modify(rec, func(_ int, tk *sample.Tick) {
			tk.Edit(sample.PublisherNode).Slots = append(tk.Read(sample.PublisherNode).Slots, sample.Slot{Name: slot, Database: "lab", ConfirmedFlush: tk.Read(sample.PublisherNode).Slots[0].ConfirmedFlush - 50<<20})
			sub := tk.Edit(sample.SubscriberNode)
			sub.Subs[0].OID, sub.Subs[0].NotReady, sub.Subs[0].SyncWorkers, sub.Copies = oid, 0, nil, nil
		})
	}
	noSubscriber := *withSlot(16399)
	noSubscriber.Nodes = noSubscriber.Nodes[:1]
	cases := []struct {
		name      string
		rec       *sample.Recording
		verdict   VerdictName
		drop      bool
		inCause   string
		statement string
	}{
		{"its subscription observed with no copy: a leftover, dropped on the publisher", withSlot(16399), Stalled, true, "leftover", "SELECT pg_drop_replication_slot('" + slot + "');"},
		{"its subscription not among those read: not called a leftover, no drop", withSlot(16400), Stalled, false, "not among the subscriptions read", "SELECT oid, subname, subdbid FROM pg_subscription WHERE oid = 16399;"},
		{"no subscriber observed: judged from the name, no drop", &noSubscriber, InitialSync, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Inputs(c.rec, []string{slot})[0])
			if v.Name != c.verdict || !strings.Contains(v.Cause, c.inCause) {
				t.Fatalf("verdict %s cause %q, want %s saying %q", v.Name, v.Cause, c.verdict, c.inCause)
			}
			got := strings.Join(statements(v.Helps), "\n")
			if strings.Contains(got, "pg_drop_replication_slot") != c.drop || c.statement != "" && got != c.statement {
				t.Errorf("statements %q, want %q (a drop: %v)", got, c.statement, c.drop)
			}
			all := append(Texts(v.Helps), v.Cause)
			for _, s := range all {
				if !c.drop && strings.Contains(s, "leftover") {
					t.Errorf("called a leftover though its subscription was not observed: %q", s)
				}
			}
			noStatementIn(t, c.name, all...)
		})
	}
	// The slot's name in the drop is a literal, whatever it holds.
	v := Explain(Verdict{Name: Stalled, d: diagnosis{fill: FillLeftover, slot: "x'); DROP TABLE users; --", sub: "Orders"}}, nil)
	if got := strings.Join(statements(v.Helps), "\n"); got != `SELECT pg_drop_replication_slot('x''); DROP TABLE users; --');` {
		t.Errorf("drop of a hostile slot name: %q", got)
	}
}

// Two subscriptions naming one slot: the active one (enabled, with an
// apply worker) is judged, whichever sorts last, and both are named.
func TestTwoSubscriptionsClaimingOneSlotJudgeTheActiveOne(t *testing.T) {
	busy := load(t, "../classify/testdata/apply-bound-pg15-lab.json")
	want := Classify(Inputs(busy, nil)[0])
	for _, decoy := range []string{"a_decoy", "zz_decoy", "Decoy; DROP TABLE users"} {
		t.Run(decoy, func(t *testing.T) {
			rec := modify(busy, func(_ int, tk *sample.Tick) {
				tk.Edit(sample.SubscriberNode).Subs = append(tk.Read(sample.SubscriberNode).Subs, sample.Sub{Name: decoy, Slot: tk.Read(sample.SubscriberNode).Subs[0].Slot, Enabled: false})
			})
			ins := Inputs(rec, nil)
			if len(ins) != 1 || ins[0].Subscription != "lab_sub" {
				t.Fatalf("paths %d judged on %q, want one on lab_sub", len(ins), ins[0].Subscription)
			}
			v := Classify(ins[0])
			if v.Name != want.Name {
				t.Errorf("verdict %s, want %s as without the decoy", v.Name, want.Name)
			}
			line := ""
			for _, e := range v.Evidence {
				if e.Key == EvRivals {
					line = e.Text
				}
			}
			if !strings.Contains(line, "lab_sub") || !strings.Contains(line, quote.Id(decoy)) || !strings.Contains(line, "judged on lab_sub, the one enabled with an apply worker") {
				t.Errorf("evidence %q does not name both subscriptions and which is judged", EvidenceTexts(v.Evidence))
			}
		})
	}
}
