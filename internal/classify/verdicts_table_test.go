package classify

import (
	"slices"
	"sort"
	"testing"
)

// The verdict table and the advice table name the same verdicts: a verdict
// given advice is exported and documented, and the other way round.
func TestTheVerdictTableNamesEveryVerdict(t *testing.T) {
	var advised []string
	for name := range adviceFor {
		advised = append(advised, name)
	}
	names := Names()
	sort.Strings(advised)
	sorted := slices.Clone(names)
	sort.Strings(sorted)
	if !slices.Equal(advised, sorted) {
		t.Errorf("verdict table %v, advice for %v: they must name the same verdicts", sorted, advised)
	}
	for _, n := range []string{CaughtUp, InitialSync} {
		if IsFinding(n) {
			t.Errorf("%s is a finding", n)
		}
	}
	for _, n := range []string{ConfirmationLag, Inconclusive, Stalled, "a-verdict-of-a-newer-lagscope"} {
		if !IsFinding(n) {
			t.Errorf("%s is not a finding", n)
		}
	}
}
