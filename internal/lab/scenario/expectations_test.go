package scenario

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

var update = flag.Bool("update", false, "rewrite the expectations table (expected.tsv) from the registry")

// tableDir holds the classifier's recordings and their expectations table.
var tableDir = filepath.Join("..", "..", "classify", "testdata")

// The expectations table is the registry's: every case's state, verdict,
// how the lab made it and the slot judged, then the states no scenario
// makes; -update rewrites it.
func TestExpectationsTableIsTheRegistrys(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, Expectations()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tableDir, "expected.tsv")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Errorf("%s is not what the registry says: run go test ./internal/lab/scenario -run %s -update, and review the diff", path, t.Name())
	}
}

// The table reads back through the recordings loader: every recording
// takes its state's verdict, how and slot from the registry (or Unmade),
// and each state is written once.
func TestEveryRecordingTakesItsTruthFromTheRegistry(t *testing.T) {
	by := map[string]Expectation{}
	for _, e := range Expectations() {
		if _, dup := by[e.State]; dup {
			t.Errorf("state %s is written twice", e.State)
		}
		by[e.State] = e
	}
	loaded, err := recordings.Load(tableDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded) == 0 {
		t.Fatal("no recordings")
	}
	for _, l := range loaded {
		e, ok := by[l.State]
		slot := ""
		if l.Slot != nil {
			slot = l.Slot.String()
		}
		if !ok || string(e.Verdict) != l.Verdict || e.How != l.How || e.Slot != slot {
			t.Errorf("%s: loaded %s %s %q slot %q, the registry says %+v", filepath.Base(l.File), l.State, l.Verdict, l.How, slot, e)
		}
	}
}

// A field holding a tab or a line break, or a row without a verdict,
// would break the table: refused.
func TestWriteTableRefusesFieldsThatBreakIt(t *testing.T) {
	for name, e := range map[string]Expectation{
		"a tab in how":        {State: "s", Verdict: "v", How: "a\tb"},
		"a line break in how": {State: "s", Verdict: "v", How: "a\nb"},
		"no verdict":          {State: "s", How: "h"},
		"a commented state":   {State: "#s", Verdict: "v"},
	} {
		if err := WriteTable(&bytes.Buffer{}, []Expectation{e}); err == nil || !strings.Contains(err.Error(), "expectation") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
