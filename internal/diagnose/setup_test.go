package diagnose

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// An apply-bound recording read with its pair's setup (the snapshots 'lagscope
// check' read from a real lab pair on 16.14: public.hot with 3 extra
// subscriber indexes, public.full_t with REPLICA IDENTITY FULL and no
// usable index, binary = true) gets the findings as its cause and first
// remedies, and loses the remedies the setup rules out; without a setup it
// says its advice is generic.
func TestTheSetupFitsTheAdvice(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "apply-bound-pg16-diag")
	if err != nil {
		t.Fatal(err)
	}
	bare := Build(rec, nil, 20).Paths[0]
	if !strings.Contains(strings.Join(bare.Caveats, "\n"), "setup (subscription options, replica identities, indexes, triggers) was not read") {
		t.Errorf("no setup, no caveat: %q", bare.Caveats)
	}
	snaps, err := os.ReadFile("../audit/testdata/misconfigured-pg16.json")
	if err != nil {
		t.Fatal(err)
	}
	rec.Setup = json.RawMessage(snaps)
	p := Build(rec, nil, 20).Paths[0]
	if p.Name != model.SubscriberApplyCPU {
		t.Fatalf("verdict %s", p.Name)
	}
	var said []string
	for _, h := range p.Helps {
		said = append(said, h.Said())
	}
	helps := strings.Join(said, "\n")
	for _, want := range []string{"CREATE INDEX CONCURRENTLY ON public.full_t (id);", "docs/checks/full-identity-no-index.md",
		"scans were not read (hot_k, hot_v, hot_kv)", "ALTER TABLE public.hot ENABLE TRIGGER hot_touch;"} {
		if !strings.Contains(helps, want) {
			t.Errorf("helps lack %q:\n%s", want, helps)
		}
	}
	// Set already, or said with its statement above.
	// streaming = parallel: the slot spilled nothing, there is no large
	// transaction to stream.
	for _, not := range []string{"binary = true", "fewer indexes", "narrower replica identity", "streaming = parallel"} {
		if strings.Contains(helps, not) {
			t.Errorf("helps still give the generic %q:\n%s", not, helps)
		}
	}
	if !strings.Contains(p.Cause, "public.full_t has REPLICA IDENTITY FULL") || !strings.Contains(p.Cause, "Trigger hot_touch on public.hot is ENABLE ALWAYS") {
		t.Errorf("cause %q, want the table without a usable index and the trigger", p.Cause)
	}
	// On 15 streaming = parallel does not exist.
	var s map[string]any
	json.Unmarshal(snaps, &s)
	s["subscriber"].(map[string]any)["version"] = map[string]any{"Major": 15, "Minor": 18}
	rec.Setup, _ = json.Marshal(s)
	if h := strings.Join(model.Texts(Build(rec, nil, 20).Paths[0].Helps), "\n"); strings.Contains(h, "streaming = parallel") {
		t.Errorf("streaming = parallel advised to a PostgreSQL 15 subscriber:\n%s", h)
	}
	if len(p.Setup) == 0 || strings.Contains(strings.Join(p.Setup, "\n"), "slot-wal-keep-size") {
		t.Errorf("setup findings %q: want those bearing on the verdict only", p.Setup)
	}
}

// Lab runs on 15.18 and 16.14 (full-identity-index: 16.14 and 18.4) whose
// cause is in the setup or in who holds a lock: the report names it, with
// what the apply worker did, and advises nothing the setup rules out (no
// extra index, no FULL identity, no disk where the worker sleeps or waits
// on a lock, no index where the apply worker uses the one there is).
func TestTheCauseIsNamedFromTheLabsStates(t *testing.T) {
	cases := []struct {
		state     string
		verdict   model.VerdictName
		cause     []string
		firstHelp string
		versions  []string // nil: 15 and 16
	}{
		{"full-identity-index", model.SubscriberApplyCPU, []string{"public.hot is published with REPLICA IDENTITY FULL", "finds its rows by usable index (REPLICA IDENTITY FULL) hot_id_lookup (", " index scans, 0 rows read by sequential scans"},
			"First give the subscriber's copy (public.hot) the same key (id)", []string{"16", "18"}},
		{"trigger-sleep", model.SubscriberWaits, []string{"Trigger lab_audit on public.hot is ENABLE ALWAYS", "waited in it (PgSleep"}, "ALTER TABLE public.hot ENABLE TRIGGER lab_audit", nil},
		{"trigger-cpu", model.SubscriberApplyCPU, []string{"Trigger lab_audit on public.hot is ENABLE ALWAYS", "ran on a CPU"}, "ALTER TABLE public.hot ENABLE TRIGGER lab_audit", nil},
		{"row-lock", model.SubscriberWaits, []string{"row locks on replicated rows", "(lab-lock-holder), idle in transaction", "FOR UPDATE"}, "end or shorten the blocking session (pid", nil},
		{"missing-column", model.Stalled, []string{"apply_error_count", "published columns missing on the subscriber: v bigint"}, "ALTER TABLE public.hot ADD COLUMN v bigint", nil},
	}
	for _, c := range cases {
		versions := c.versions
		if versions == nil {
			versions = []string{"15", "16"}
		}
		for _, v := range versions {
			name := c.state + "-pg" + v + "-diag"
			rec, err := recordings.Read("../classify/testdata", name)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Setup) == 0 {
				t.Fatalf("%s: no setup in the recording", name)
			}
			p := Build(rec, nil, 20).Paths[0]
			if p.Name != c.verdict {
				t.Errorf("%s: verdict %s, want %s", name, p.Name, c.verdict)
			}
			for _, want := range c.cause {
				if !strings.Contains(p.Cause, want) {
					t.Errorf("%s: cause %q lacks %q", name, p.Cause, want)
				}
			}
			if c.firstHelp != "" && (len(p.Helps) == 0 || !strings.Contains(p.Helps[0].Said(), c.firstHelp)) {
				t.Errorf("%s: helps %q, want %q first", name, p.Helps, c.firstHelp)
			}
			for _, h := range model.Texts(p.Helps) {
				// One subscribed table: nothing to split over subscriptions.
				for _, wrong := range []string{"faster disk", "fewer indexes", "narrower replica identity", "binary = true", "streaming = parallel", "splitting the tables", "CREATE INDEX", "DROP INDEX"} {
					if strings.Contains(h, wrong) {
						t.Errorf("%s: help %q is ruled out by the setup or the measurement", name, h)
					}
				}
			}
		}
	}
}

// A decode-bound walsender on a publisher whose setup shows one slot, no
// row filter and no spill gets none of the remedies about those, and
// still a remedy that fits: a faster core.
func TestDecodeAdviceFollowsThePublishersSetup(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "decode-bound-pg16-diag")
	if err != nil {
		t.Fatal(err)
	}
	if p := Build(rec, nil, 20).Paths[0]; !strings.Contains(strings.Join(model.Texts(p.Helps), "\n"), "fewer slots") {
		t.Fatalf("without a setup the generic remedies stay: %q", p.Helps)
	}
	snaps, err := os.ReadFile("../audit/testdata/misconfigured-pg16.json")
	if err != nil {
		t.Fatal(err)
	}
	rec.Setup = json.RawMessage(snaps)
	p := Build(rec, nil, 20).Paths[0]
	if p.Name != model.WalsenderDecodeCPU {
		t.Fatalf("verdict %s", p.Name)
	}
	helps := strings.Join(model.Texts(p.Helps), "\n")
	for _, not := range []string{"fewer slots", "simpler or no publication row filters", "logical_decoding_work_mem large enough", "streaming for large transactions"} {
		if strings.Contains(helps, not) {
			t.Errorf("helps give %q, which this publisher rules out:\n%s", not, helps)
		}
	}
	if !strings.Contains(helps, "a faster CPU core") {
		t.Errorf("helps %q, want the faster core", helps)
	}
}

// Without the setup, the servers' versions recorded in the samples still
// rule out what those versions lack: a 15 pair is not advised streaming =
// parallel (16+); a 16 pair keeps the generic line.
func TestTheRecordedVersionsRuleOutRemediesWithoutASetup(t *testing.T) {
	for _, c := range []struct {
		name     string
		parallel bool
	}{{"full-identity-pg15-diag", false}, {"full-identity-pg16-diag", true}} {
		rec, err := recordings.Read("../classify/testdata", c.name)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Setup) != 0 {
			t.Fatalf("%s carries a setup: the test needs one without", c.name)
		}
		p := Build(rec, nil, 20).Paths[0]
		helps := strings.Join(model.Texts(p.Helps), "\n")
		if got := strings.Contains(helps, "streaming = parallel"); got != c.parallel {
			t.Errorf("%s: streaming = parallel advised %v, want %v:\n%s", c.name, got, c.parallel, helps)
		}
		if !strings.Contains(strings.Join(p.Caveats, "\n"), "the advice is generic") {
			t.Errorf("%s: no caveat that the advice is generic: %q", c.name, p.Caveats)
		}
	}
}

// A large transaction sent whole (big-txn on 16.14) read with a setup whose
// subscription has streaming = off is offered streaming = parallel in its
// what-if lines, without a figure; not where it streams already, nor with a
// 15 subscriber.
func TestALargeTransactionIsOfferedParallelStreaming(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "big-txn-pg16-diag")
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := os.ReadFile("../audit/testdata/misconfigured-pg16.json")
	if err != nil {
		t.Fatal(err)
	}
	offered := func(streaming string, major int) bool {
		t.Helper()
		var s map[string]any
		if err := json.Unmarshal(snaps, &s); err != nil {
			t.Fatal(err)
		}
		sub := s["subscriber"].(map[string]any)
		sub["subscriptions"].([]any)[0].(map[string]any)["streaming"] = streaming
		sub["version"] = map[string]any{"Major": major, "Minor": 0}
		rec.Setup, _ = json.Marshal(s)
		p := Build(rec, nil, 20).Paths[0]
		if p.Name != model.LargeTransaction {
			t.Fatalf("verdict %s", p.Name)
		}
		for _, w := range p.WhatIf {
			if w.Change == "streaming=parallel" {
				if w.NotPredicted == "" {
					t.Errorf("%s: want offered without a figure", w)
				}
				return true
			}
		}
		return false
	}
	if !offered("off", 16) {
		t.Error("streaming = off on 16: streaming=parallel not offered")
	}
	if offered("on", 16) {
		t.Error("streaming = on: streaming=parallel offered")
	}
	if offered("off", 15) {
		t.Error("a 15 subscriber: streaming=parallel offered")
	}
}
