package model

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/lagscope/lagscope/internal/quote"

	"github.com/lagscope/lagscope/internal/testkit/recordings"
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
		check(string(name), a.helps)
		check(string(name)+" does not help", a.not)
	}
	for also, h := range alsoHelps {
		check("also "+also, []Advice{h})
	}
	exps, err := recordings.Load("../classify/testdata")
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

// TestAdviceIsWrittenAsItsTextAndStatements checks that a remedy writes
// its text and statements (schema 8) and reads back both that and the
// text alone that reports before schema 8 wrote.
func TestAdviceIsWrittenAsItsTextAndStatements(t *testing.T) {
	run := []quote.Statement{quote.SQL("ALTER SUBSCRIPTION %I SET (binary = true);", "Orders").OnServer("subscriber")}
	b, err := json.Marshal([]Advice{{KeyBinary, "binary = true <on>", run}, {KeyBandwidth, "more bandwidth", nil}})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"text":"binary = true \u003con\u003e","run":[{"kind":"sql","on":"subscriber","text":"ALTER SUBSCRIPTION \"Orders\" SET (binary = true);"}]},{"text":"more bandwidth"}]`
	if string(b) != want {
		t.Errorf("written %s\nwant    %s", b, want)
	}
	cases := []struct {
		name, in string
		want     []Advice
	}{
		{"schema 8 advice reads back its text and statements, without its key", string(b), []Advice{{"", "binary = true <on>", run}, {"", "more bandwidth", nil}}},
		{"advice written before schema 8 reads back as its text", `["binary = true", "more bandwidth"]`, []Advice{{"", "binary = true", nil}, {"", "more bandwidth", nil}}},
	}
	for _, c := range cases {
		var back []Advice
		if err := json.Unmarshal([]byte(c.in), &back); err != nil || !reflect.DeepEqual(back, c.want) {
			t.Errorf("%s: read back %+v, %v", c.name, back, err)
		}
	}
	var bad []Advice
	if err := json.Unmarshal([]byte(`[1]`), &bad); err == nil {
		t.Errorf("a number read as advice: %+v", bad)
	}
}
