package diagnose

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// A full-identity lab run on 16.14 whose samples hold the subscribed
// table's counters: public.hot (100k rows, REPLICA IDENTITY FULL, no index
// on the subscriber) had 2,460 rows updated in the 10 s window, each found
// by sequential scans that read 124M rows. The cause names the rows read
// per second and per row changed.
func TestTheFullIdentityCauseNamesTheRowsScanned(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "full-identity-pg16-counters")
	if err != nil {
		t.Fatal(err)
	}
	p := Build(rec, nil, 20).Paths[0]
	if p.Name != model.SubscriberApplyCPU {
		t.Fatalf("verdict %s, want %s", p.Name, model.SubscriberApplyCPU)
	}
	if len(p.Tables) != 1 || p.Tables[0].Name != "hot" || p.Tables[0].Updated != 2460 {
		t.Fatalf("tables %+v, want public.hot with 2460 rows updated", p.Tables)
	}
	want := "scans the table (about 100000 rows, 16 MB) once per changed row; measured in the window: 12M rows read per second, 50k per row changed (4.9k sequential scans in 10 s)"
	if !strings.Contains(p.Cause, "public.hot has REPLICA IDENTITY FULL") || !strings.Contains(p.Cause, want) {
		t.Errorf("cause %q, want public.hot named with %q", p.Cause, want)
	}
}

// On 16+ an index the apply worker can use for REPLICA IDENTITY FULL is
// named in the cause instead of a scan: the same run, its subscriber's
// copy of hot given a btree on id (not a key) in the setup.
func TestAUsableIndexIsNamedForFullIdentity(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "full-identity-pg16-counters")
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(rec.Setup, &s); err != nil {
		t.Fatal(err)
	}
	sub := s["subscriber"].(map[string]any)
	for _, tb := range sub["tables"].([]any) {
		tb := tb.(map[string]any)
		if tb["name"] == "hot" {
			tb["indexes"] = []any{map[string]any{"oid": 90001, "name": "hot_id_idx", "am": "btree", "valid": true, "live": true, "gettuple": true,
				"keys": []any{map[string]any{"attnum": 1, "column": "id"}}, "attributes": []any{map[string]any{"type": "integer", "equality": true}}}}
		}
	}
	rec.Setup, _ = json.Marshal(s)
	p := Build(rec, nil, 20).Paths[0]
	if strings.Contains(p.Cause, "full-identity-no-index") || strings.Contains(p.Cause, "rows read per second") {
		t.Errorf("cause %q: the index is usable, no scan to name", p.Cause)
	}
	if !strings.Contains(p.Cause, "finds its rows by usable index (REPLICA IDENTITY FULL) hot_id_idx") {
		t.Errorf("cause %q, want hot_id_idx named", p.Cause)
	}
}
