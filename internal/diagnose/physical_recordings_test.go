package diagnose

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// TestPhysicalRecordingsOfLabStates judges every physical standby's
// recording in ../classify/testdata/physical (diagnose's samples from the
// lab's physical scenarios, LAGSCOPE_RECORD_DIR) and checks the verdict
// the lab's state must produce (expected.tsv, from the scenarios'
// registry), then again without /proc: the same verdict, inconclusive,
// or another one at a confidence of at most 0.6. Every report renders in
// every format.
func TestPhysicalRecordingsOfLabStates(t *testing.T) {
	exps, err := recordings.LoadIn(filepath.Join("..", "classify", "testdata"), "physical")
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) == 0 {
		t.Fatal("no recordings in ../classify/testdata/physical")
	}
	for _, e := range exps {
		t.Run(filepath.Base(e.File), func(t *testing.T) {
			f, err := os.Open(e.File)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rec, err := sample.ReadRecording(f)
			if err != nil {
				t.Fatal(err)
			}
			if !IsPhysical(rec) {
				t.Fatalf("not a physical standby's recording: nodes %v", rec.Nodes)
			}
			rep := BuildPhysical(rec, 20)
			if len(rep.Physical) != 1 {
				t.Fatalf("%d physical paths, want 1", len(rep.Physical))
			}
			v := rep.Physical[0].Verdict
			if string(v.Name) != e.Verdict {
				t.Errorf("verdict %s (%.2f) with evidence %q; the lab made %s (%s): want %s", v.Name, v.Confidence, model.EvidenceTexts(v.Evidence), e.State, e.How, e.Verdict)
			}
			if v.Confidence <= 0 || v.Confidence > 1 || len(v.Evidence) == 0 || v.Headline == "" {
				t.Errorf("verdict lacks confidence, evidence or headline: %+v", v)
			}
			for format := range report.Renderers {
				if err := report.Render(&bytes.Buffer{}, rep, format); err != nil {
					t.Errorf("%s: %v", format, err)
				}
			}
			np := BuildPhysical(rec.WithoutProc(), 20).Physical[0].Verdict
			if string(np.Name) != e.Verdict && np.Name != model.Inconclusive && np.Confidence > 0.6 {
				t.Errorf("without /proc: %s at %.2f (evidence %q); want %s, inconclusive, or at most 0.6", np.Name, np.Confidence, model.EvidenceTexts(np.Evidence), e.Verdict)
			}
		})
	}
}
