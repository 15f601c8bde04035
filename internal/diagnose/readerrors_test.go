package diagnose

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// A recording whose blocker reads timed out at some ticks gets a caveat
// that says how many and what stays unknown; one without gets none.
func TestFailedBestEffortReadsBecomeACaveat(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "subscriber-lock-pg16-diag")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range Build(rec, nil, 20).Notes {
		if strings.Contains(n, "could not be read") {
			t.Fatalf("a recording without read errors has the caveat %q", n)
		}
	}
	for i := 2; i < 5; i++ {
		rec.Ticks[i].ReadErrors = append(rec.Ticks[i].ReadErrors, sample.ReadError{Side: sample.Subscriber, Source: sample.SourceBlockers,
			Err: "no answer within 3s (a frozen or broken network path: the server cancels a slow statement after 2s)"})
	}
	var found string
	for _, n := range Build(rec, nil, 20).Notes {
		if strings.Contains(n, "blockers could not be read") {
			found = n
		}
	}
	if !strings.Contains(found, "at 3 of") || !strings.Contains(found, "no answer within 3s") || !strings.Contains(found, `not "no blocker"`) {
		t.Errorf("caveat %q: want the count, the reason and what stays unknown", found)
	}
}
