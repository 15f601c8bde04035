package diagnose

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/classify"
	"github.com/lagscope/lagscope/internal/recordings"
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
	if p.Name != classify.SubscriberApplyCPU {
		t.Fatalf("verdict %s", p.Name)
	}
	helps := strings.Join(p.Helps, "\n")
	for _, want := range []string{"CREATE INDEX CONCURRENTLY ON public.full_t (id)", "docs/checks/full-identity-no-index.md",
		"DROP INDEX CONCURRENTLY public.hot_k", "ALTER TABLE public.hot ENABLE TRIGGER hot_touch"} {
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
	if h := strings.Join(Build(rec, nil, 20).Paths[0].Helps, "\n"); strings.Contains(h, "streaming = parallel") {
		t.Errorf("streaming = parallel advised to a PostgreSQL 15 subscriber:\n%s", h)
	}
	if len(p.Setup) == 0 || strings.Contains(strings.Join(p.Setup, "\n"), "slot-wal-keep-size") {
		t.Errorf("setup findings %q: want those bearing on the verdict only", p.Setup)
	}
}
