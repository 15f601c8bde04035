package classify

import (
	"encoding/json"
	"testing"

	"github.com/lagscope/lagscope/internal/recordings"
)

// TestEveryRemedyHasAKey checks the general advice (what helps and what
// does not), the second resource's remedies and what every recorded path
// is advised, with and without /proc: code fits advice by key, so a remedy
// or a "does not help" line without one could not be fitted.
func TestEveryRemedyHasAKey(t *testing.T) {
	check := func(where string, helps []Advice) {
		t.Helper()
		for _, h := range helps {
			if h.Key == "" || h.Text == "" {
				t.Errorf("%s: remedy %q has no key or no text", where, h.Text)
			}
		}
	}
	for name, a := range adviceFor {
		check(name, a.helps)
		check(name+" does not help", a.not)
	}
	for also, h := range alsoHelps {
		check("also "+also, []Advice{h})
	}
	exps, err := recordings.Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		rec := load(t, e.File)
		for _, r := range []struct {
			name string
			ins  []Input
		}{{e.File, Inputs(rec, nil)}, {e.File + " without /proc", Inputs(rec.WithoutProc(), nil)}} {
			for _, in := range r.ins {
				v := Classify(in)
				check(r.name+" "+in.Slot, v.Helps)
				check(r.name+" "+in.Slot+" does not help", v.NotHelps)
			}
		}
	}
}

// TestAdviceIsWrittenAsItsText checks that a remedy reads and writes as its
// text alone, as reports were written before remedies had keys.
func TestAdviceIsWrittenAsItsText(t *testing.T) {
	b, err := json.Marshal([]Advice{{KeyBinary, "binary = true <on>"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `["binary = true \u003con\u003e"]` {
		t.Errorf("written %s", b)
	}
	var back []Advice
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 1 || back[0] != (Advice{Text: "binary = true <on>"}) {
		t.Errorf("read back %+v, %v", back, err)
	}
}
