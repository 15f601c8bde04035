// Package recordings reads the expectations of the classifier's regression
// set: recorded real lab runs (internal/classify/testdata) and the state the
// lab made in each, which is the verdict the classifier must give. The
// table of states (expected.tsv) is generated from the lab's scenarios
// (internal/lab/scenario); this package only reads it, so that the tests of
// the packages the lab imports can too.
package recordings

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Expectation is the truth of one recording.
type Expectation struct {
	File    string // path of the recording
	State   string // the lab state it was recorded in
	Verdict string // the verdict that state must produce
	How     string // how the lab made the state
	// Slot picks the path judged when the recording has several (a
	// regular expression on the slot name; nil: the recording's only path).
	Slot *regexp.Regexp
}

// Path returns the index of the path the expectation judges among the
// given slot names, or -1 when none (or, without Slot, not exactly one).
func (e Expectation) Path(slots []string) int {
	if e.Slot == nil {
		if len(slots) == 1 {
			return 0
		}
		return -1
	}
	for i, s := range slots {
		if e.Slot.MatchString(s) {
			return i
		}
	}
	return -1
}

// Load lists the recordings (*.json) in dir with their expectations from
// dir/expected.tsv. A recording whose name matches no state is an error:
// every recording states its truth.
func Load(dir string) ([]Expectation, error) {
	return LoadIn(dir, "")
}

// LoadIn is Load of the recordings in dir's subdirectory sub (a physical
// standby's, in testdata/physical), with their expectations from
// dir/expected.tsv.
func LoadIn(dir, sub string) ([]Expectation, error) {
	f, err := os.Open(filepath.Join(dir, "expected.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type state struct {
		name, verdict, how string
		slot               *regexp.Regexp
	}
	var states []state
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) < 2 || len(parts) > 4 {
			return nil, fmt.Errorf("expected.tsv: %q: want state<TAB>verdict<TAB>how[<TAB>slot]", line)
		}
		st := state{name: parts[0], verdict: parts[1]}
		if len(parts) >= 3 {
			st.how = parts[2]
		}
		if len(parts) == 4 {
			re, err := regexp.Compile(parts[3])
			if err != nil {
				return nil, fmt.Errorf("expected.tsv: %s: slot %q: %w", st.name, parts[3], err)
			}
			st.slot = re
		}
		states = append(states, st)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, sub, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Expectation
	for _, file := range files {
		base := filepath.Base(file)
		var best state
		for _, st := range states {
			if strings.HasPrefix(base, st.name+"-pg") && len(st.name) > len(best.name) {
				best = st
			}
		}
		if best.name == "" {
			return nil, fmt.Errorf("%s: no state in expected.tsv matches this name (<state>-pg<version>-<origin>.json)", base)
		}
		out = append(out, Expectation{File: file, State: best.name, Verdict: best.verdict, How: best.how, Slot: best.slot})
	}
	return out, nil
}
