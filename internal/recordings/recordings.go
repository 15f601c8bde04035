// Package recordings reads the expectations of the classifier's regression
// set: recorded real lab runs (internal/classify/testdata) and the state the
// lab made in each, which is the verdict the classifier must give.
package recordings

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Expectation is the truth of one recording.
type Expectation struct {
	File    string // path of the recording
	State   string // the lab state it was recorded in
	Verdict string // the verdict that state must produce
	How     string // how the lab made the state
}

// Load lists the recordings (*.json) in dir with their expectations from
// dir/expected.tsv. A recording whose name matches no state is an error:
// every recording states its truth.
func Load(dir string) ([]Expectation, error) {
	f, err := os.Open(filepath.Join(dir, "expected.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type state struct{ name, verdict, how string }
	var states []state
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) < 2 {
			return nil, fmt.Errorf("expected.tsv: %q: want state<TAB>verdict<TAB>how", line)
		}
		st := state{name: parts[0], verdict: parts[1]}
		if len(parts) == 3 {
			st.how = parts[2]
		}
		states = append(states, st)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
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
		out = append(out, Expectation{File: file, State: best.name, Verdict: best.verdict, How: best.how})
	}
	return out, nil
}
