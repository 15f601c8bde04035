package model

import (
	"slices"
	"testing"
)

// The verdict table and the advice table name the same verdicts: a verdict
// given advice is exported and documented, and the other way round.
func TestTheVerdictTableNamesEveryVerdict(t *testing.T) {
	var advised []VerdictName
	for name := range adviceFor {
		advised = append(advised, name)
	}
	names := Names()
	slices.Sort(advised)
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	if !slices.Equal(advised, sorted) {
		t.Errorf("verdict table %v, advice for %v: they must name the same verdicts", sorted, advised)
	}
	for _, n := range []VerdictName{CaughtUp, InitialSync} {
		if IsFinding(n) {
			t.Errorf("%s is a finding", n)
		}
	}
	for _, n := range []VerdictName{ConfirmationLag, Inconclusive, Stalled, "a-verdict-of-a-newer-lagscope"} {
		if !IsFinding(n) {
			t.Errorf("%s is not a finding", n)
		}
	}
}

// Each row of the verdict texts names verdicts of the table, and no two
// rows select the same verdict, fill and phase (the first would hide the
// second).
func TestEveryVariantIsOneVerdictsAndReachable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range variants {
		for _, n := range r.verdicts {
			if !slices.Contains(Names(), n) {
				t.Errorf("a variant names %s, which the verdict table lacks", n)
			}
			key := string(n) + "/" + r.fill + "/" + r.phase
			if seen[key] {
				t.Errorf("two variants select %s", key)
			}
			seen[key] = true
		}
		if r.fill == "" && r.phase == "" {
			t.Errorf("a variant of %v selects by neither fill nor phase: that is the verdict's general advice (adviceFor)", r.verdicts)
		}
	}
}
