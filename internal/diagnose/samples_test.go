package diagnose

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// TestFromSamplesReproducesEveryRecording re-classifies every recording of
// the classifier's regression set through the --from-samples path and
// checks it gives the report Build gives live, for the verdict the lab made.
func TestFromSamplesReproducesEveryRecording(t *testing.T) {
	exps, err := recordings.Load(filepath.Join("..", "classify", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) < 10 {
		t.Fatalf("only %d recordings in classify/testdata", len(exps))
	}
	for _, e := range exps {
		t.Run(filepath.Base(e.File), func(t *testing.T) {
			b, err := os.ReadFile(e.File)
			if err != nil {
				t.Fatal(err)
			}
			var rec sample.Recording
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatal(err)
			}
			want := Build(&rec, nil, rec.ProbeHz())
			got, err := FromSamples(bytes.NewReader(b), "", "", false, model.LinkRates{})
			if err != nil {
				t.Fatal(err)
			}
			var slots []string
			for _, p := range got.Paths {
				slots = append(slots, p.Slot)
			}
			i := e.Path(slots)
			if i < 0 || len(want.Paths) != len(got.Paths) || got.Paths[i].Name != want.Paths[i].Name || got.Paths[i].Confidence != want.Paths[i].Confidence {
				t.Fatalf("from samples: %+v, live build: %+v", got.Paths, want.Paths)
			}
			if string(got.Paths[i].Name) != e.Verdict {
				t.Errorf("verdict %s; the lab made %s (%s): want %s", got.Paths[i].Name, e.State, e.How, e.Verdict)
			}
			var a, c bytes.Buffer
			report.JSON(&a, got)
			report.JSON(&c, want)
			if a.String() != c.String() {
				t.Error("the report from samples differs from the one built directly")
			}
		})
	}
}

func TestFromSamplesRefusesWhatItCannotRead(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("..", "classify", "testdata", "apply-bound-pg16-diag.json"))
	cases := []struct {
		name, input, slot, sub, want string
	}{
		{"a file that is not JSON says what to give it", "hello", "", "", "--save-samples"},
		{"a report instead of samples is refused", `{"schema_version": 1, "tool": "lagscope"}`, "", "", "not a lagscope samples file"},
		{"a newer recording asks for an upgrade", `{"version": 99, "publisher": {"version": "16.1"}}`, "", "", "upgrade lagscope"},
		{"an unknown slot names the ones there are", string(b), "nope", "", "lab_sub"},
		{"an unknown subscription names the ones there are", string(b), "", "nope", "lab_sub"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := FromSamples(strings.NewReader(c.input), c.slot, c.sub, false, model.LinkRates{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	if _, err := FromSamples(bytes.NewReader(b), "nope", "", false, model.LinkRates{}); !errors.Is(err, ErrNothingToDiagnose) {
		t.Errorf("an unknown slot: %v, want ErrNothingToDiagnose", err)
	}
}

func TestFromSamplesRestrictsToTheAskedPath(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "classify", "testdata", "initial-sync-pg16-diag.json"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := FromSamples(bytes.NewReader(b), "", "", false, model.LinkRates{})
	if err != nil || len(all.Paths) != 2 {
		t.Fatalf("all paths: %v, %d paths; want the subscription's slot and its tablesync slot", err, len(all.Paths))
	}
	sync := all.Paths[1].Slot
	if !strings.Contains(sync, "_sync_") {
		sync = all.Paths[0].Slot
	}
	one, err := FromSamples(bytes.NewReader(b), sync, "", false, model.LinkRates{})
	if err != nil || len(one.Paths) != 1 || one.Paths[0].Slot != sync || one.Paths[0].Name != "initial-sync" {
		t.Errorf("--slot %s: %v, %+v; want that one initial-sync path", sync, err, one.Paths)
	}
	bySub, err := FromSamples(bytes.NewReader(b), "", "lab_sub", false, model.LinkRates{})
	if err != nil || len(bySub.Paths) != 1 || bySub.Paths[0].Slot != "lab_sub" {
		t.Errorf("--subscription lab_sub: %v, %+v; want its own slot only", err, bySub.Paths)
	}
}
