package scenario

import (
	"fmt"
	"io"
	"strings"

	"github.com/lagscope/lagscope/internal/model"
)

// An Expectation is the truth of the recordings made in one state: a
// row of expected.tsv (internal/classify/testdata), which
// internal/testkit/recordings reads.
type Expectation struct {
	// State names the state: a recording named <state>-pg<version>-... was
	// made in it (the longest State that prefixes its name).
	State string
	// Verdict is the verdict the state must produce.
	Verdict model.VerdictName
	// How says how the lab made the state.
	How string
	// Slot is a regular expression on the slot of the path judged when a
	// recording has several ("" = its only path).
	Slot string
}

// Expectations lists every case's expectation, in the registry's order,
// then the Unmade states'.
func Expectations() []Expectation {
	var es []Expectation
	for _, c := range Cases() {
		es = append(es, Expectation{State: c.Label, Verdict: c.Verdict, How: c.How(), Slot: c.JudgedSlot()})
	}
	return append(es, Unmade...)
}

// tableHeader opens expected.tsv.
const tableHeader = `# What each recording in this directory must be classified as: the state the
# lab made when it was recorded, never what a rule happened to print. A file
# named <state>-pg<version>-<origin>.json takes the verdict of the longest
# <state> below that prefixes its name. A recording with several paths (a
# tablesync slot beside its subscription's) is judged on the path whose slot
# matches the fourth column, a regular expression. A rule change that breaks
# one is a rule bug until proven otherwise.
#
# Generated from internal/lab/scenario (each scenario's file, and Unmade for
# the states no scenario makes): edit those, then run
#   go test ./internal/lab/scenario -run TestExpectationsTableIsTheRegistrys -update
#
# state	verdict	how the lab made it	slot (when several paths)
`

// WriteTable writes es as expected.tsv: the header, then one line a
// state, its fields separated by tabs (the slot only when there is one).
// A field holding a tab or a line break is an error.
func WriteTable(w io.Writer, es []Expectation) error {
	var b strings.Builder
	b.WriteString(tableHeader)
	for _, e := range es {
		fields := []string{e.State, string(e.Verdict), e.How}
		if e.Slot != "" {
			fields = append(fields, e.Slot)
		}
		for _, f := range fields {
			if strings.ContainsAny(f, "\t\n\r") {
				return fmt.Errorf("expectation %s: %q holds a tab or a line break", e.State, f)
			}
		}
		if e.State == "" || e.Verdict == "" || strings.HasPrefix(e.State, "#") {
			return fmt.Errorf("expectation %q: a state and a verdict are required", e.State)
		}
		b.WriteString(strings.Join(fields, "\t") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
