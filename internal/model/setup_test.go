package model

import (
	"reflect"
	"slices"
	"testing"
)

func TestSetupCombinesWithTheVerdictsTexts(t *testing.T) {
	own := []Advice{{KeyBinary, "binary", nil, nil}, {Text: "general"}, {KeyFewerIndexes, "fewer indexes", nil, nil}}
	fix := Advice{Key: "replica-triggers", Text: "ALTER TABLE t ENABLE TRIGGER x"}
	for _, c := range []struct {
		name      string
		setup     Setup
		own       string
		wantCause string
		wantHelps []string
	}{
		{"a setup with nothing to say leaves the verdict's texts", Setup{}, "own", "own", []string{"binary", "general", "fewer indexes"}},
		{"the verdict's own cause comes first, the setup's next", Setup{Causes: []string{"a", "b"}}, "own", "own; in the setup: a; b", []string{"binary", "general", "fewer indexes"}},
		{"one cause in the setup is the cause", Setup{Causes: []string{"a"}}, "", "cause: a", []string{"binary", "general", "fewer indexes"}},
		{"several causes in the setup are all named", Setup{Causes: []string{"a", "b"}}, "", "causes in the setup: a; b", []string{"binary", "general", "fewer indexes"}},
		{"fixes come first and ruled-out remedies go by key", Setup{Fixes: []Advice{fix}, RuledOut: []RemedyID{KeyBinary, KeyFewerIndexes}}, "", "", []string{fix.Text, "general"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.setup.cause(c.own); got != c.wantCause {
				t.Errorf("cause %q, want %q", got, c.wantCause)
			}
			if got := Texts(c.setup.helps(own)); !slices.Equal(got, c.wantHelps) {
				t.Errorf("helps %q, want %q", got, c.wantHelps)
			}
		})
	}
}

func TestTheSetupRulesDoesNotHelpLinesOutByKey(t *testing.T) {
	v := Judge(Inputs(load(t, "../classify/testdata/apply-bound-pg16-diag.json"), nil)[0])
	if v.Name != SubscriberApplyCPU {
		t.Fatalf("verdict %s, want %s", v.Name, SubscriberApplyCPU)
	}
	all := Explain(v, &Setup{}).NotHelps
	if len(all) != 3 {
		t.Fatalf("does not help %q, want the verdict's 3 lines", Texts(all))
	}
	for _, a := range all {
		if a.Key == "" {
			t.Errorf("%q has no key", a.Text)
		}
	}
	got := Explain(v, &Setup{Moot: []RemedyID{KeyBandwidth, KeyHashPartitioning}}).NotHelps
	if want := []Advice{all[1]}; !reflect.DeepEqual(got, want) {
		t.Errorf("with bandwidth and hash partitioning ruled out: %q, want %q", Texts(got), Texts(want))
	}
	if got := Explain(v, &Setup{RuledOut: []RemedyID{KeyBandwidth}}).NotHelps; !reflect.DeepEqual(got, all) {
		t.Errorf("ruling the bandwidth remedy out changed what does not help: %q, want %q", Texts(got), Texts(all))
	}
}
