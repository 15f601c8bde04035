package model

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// nearMargin is the margin, in share points, under which a recording sits
// too close to the threshold that decided it: a noisier run of the same
// state could fall on the other side.
const nearMargin = 0.03

// knownNear are the recordings whose deciding margin is under nearMargin,
// with why the verdict still stands; a recording that comes near a
// threshold must be listed here (and its state recorded again) before the
// margins test passes.
var knownNear = map[string]string{}

// marginsDoc is the page whose margins table this test keeps.
const marginsDoc = "../../docs/verdicts/README.md"

const marginsBegin, marginsEnd = "<!-- margins: begin (go test ./internal/model -run MarginsOfEvery; LAGSCOPE_UPDATE_DOCS=1 rewrites it) -->", "<!-- margins: end -->"

// TestTheMarginsOfEveryRecording classifies every recording, prints the
// condition that decided its verdict with its margin, and fails on a margin
// under nearMargin unless the recording is in knownNear. The table in
// docs/verdicts/README.md must be the one it prints.
func TestTheMarginsOfEveryRecording(t *testing.T) {
	exps, err := recordings.Load("../classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| recording | verdict | confidence | the condition nearest its threshold | margin |\n|---|---|---|---|---|\n")
	for _, e := range exps {
		in, _ := judged(t, e)
		v := Classify(in)
		name := strings.TrimSuffix(filepath.Base(e.File), ".json")
		cond, m := "a fact, not a threshold", "-"
		if d := v.Decided; d != nil {
			cond, m = d.Condition, fmt.Sprintf("%+.3f", d.Margin)
			if why, ok := knownNear[name]; d.Margin < nearMargin && !ok {
				t.Errorf("%s: %s at %.2f, decided by %q with a margin of %.3f (under %.2f): record the state again or list it in knownNear with why", name, v.Name, v.Confidence, d.Condition, d.Margin, nearMargin)
			} else if ok {
				m += " (near: " + why + ")"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f | %s | %s |\n", name, v.Name, v.Confidence, cond, m)
	}
	table := b.String()
	t.Logf("margins:\n%s", table)
	doc, err := os.ReadFile(marginsDoc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, marginsBegin), strings.Index(s, marginsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no margins block (%s ... %s)", marginsDoc, marginsBegin, marginsEnd)
	}
	want := s[:i+len(marginsBegin)] + "\n" + table + s[j:]
	if want == s {
		return
	}
	if os.Getenv("LAGSCOPE_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(marginsDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the margins table differs from the recordings' (LAGSCOPE_UPDATE_DOCS=1 rewrites it):\n%s", marginsDoc, table)
}
