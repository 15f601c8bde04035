package model

import (
	"path/filepath"
	"testing"

	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// TestEveryRecordedVerdictStatesWhatItDecidedOn judges every path of every
// recording, with and without /proc, and checks that its rule recorded what
// it decided on (a basis; for a large transaction, its stage model's too),
// that the evidence begins with the lines that basis states, and that every
// evidence item and every remedy has its key and a text.
func TestEveryRecordedVerdictStatesWhatItDecidedOn(t *testing.T) {
	exps, err := recordings.Load("../classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		t.Run(filepath.Base(e.File), func(t *testing.T) {
			rec := load(t, e.File)
			for _, r := range []struct {
				name string
				ins  []Input
			}{{"with /proc", Inputs(rec, nil)}, {"without /proc", Inputs(rec.WithoutProc(), nil)}} {
				for _, in := range r.ins {
					v := Judge(in)
					if v.d.basis == basisNone || v.d.inner != nil && v.d.inner.d.basis == basisNone {
						t.Errorf("%s, slot %s: verdict %s records no basis: its rule states nothing it decided on", r.name, in.Slot, v.Name)
						continue
					}
					lines := decisionLines(v, in, stages(in))
					if len(lines) == 0 || len(v.Evidence) < len(lines) || v.Evidence[0].Key != lines[0].Key || v.Evidence[0].Text != lines[0].Text {
						t.Errorf("%s, slot %s: verdict %s: evidence %q does not begin with its basis's lines %q", r.name, in.Slot, v.Name, EvidenceTexts(v.Evidence), EvidenceTexts(lines))
					}
					for _, ev := range v.Evidence {
						if ev.Key == "" || ev.Text == "" {
							t.Errorf("%s, slot %s: verdict %s: evidence item %+v has no key or no text", r.name, in.Slot, v.Name, ev)
						}
					}
					v = Explain(v, nil)
					for _, a := range append(v.Helps, v.NotHelps...) {
						if a.Key == "" || a.Text == "" {
							t.Errorf("%s, slot %s: verdict %s: remedy %+v has no key or no text", r.name, in.Slot, v.Name, a)
						}
					}
				}
			}
		})
	}
}
