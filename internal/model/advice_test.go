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

// TestAdviceIsWrittenAsItsKeyTextAndStatements checks that a remedy writes
// its key, text, statements and figures (schema 9) and reads back both
// that, schema 8's text and statements (no key) and the text alone that
// reports before schema 8 wrote.
func TestAdviceIsWrittenAsItsKeyTextAndStatements(t *testing.T) {
	run := []quote.Statement{quote.SQL("ALTER SUBSCRIPTION %I SET (binary = true);", "Orders").OnServer("subscriber")}
	written := []Advice{{KeyBinary, "binary = true <on>", run, nil}, {KeyBandwidth, "more bandwidth", nil, Figures{"headroom": 1.5}}}
	b, err := json.Marshal(written)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"key":"binary","text":"binary = true \u003con\u003e","run":[{"kind":"sql","on":"subscriber","text":"ALTER SUBSCRIPTION \"Orders\" SET (binary = true);"}]},{"key":"bandwidth","text":"more bandwidth","figures":{"headroom":1.5}}]`
	if string(b) != want {
		t.Errorf("written %s\nwant    %s", b, want)
	}
	schema8 := `[{"text":"binary = true","run":[{"kind":"sql","on":"subscriber","text":"ALTER SUBSCRIPTION \"Orders\" SET (binary = true);"}]},{"text":"more bandwidth"}]`
	cases := []struct {
		name, in string
		want     []Advice
	}{
		{"schema 9 advice reads back its key, text, statements and figures", string(b), written},
		{"schema 8 advice reads back its text and statements, without a key", schema8, []Advice{{"", "binary = true", run, nil}, {"", "more bandwidth", nil, nil}}},
		{"advice written before schema 8 reads back as its text", `["binary = true", "more bandwidth"]`, []Advice{{"", "binary = true", nil, nil}, {"", "more bandwidth", nil, nil}}},
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
