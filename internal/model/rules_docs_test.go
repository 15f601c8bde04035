package model

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The docs generated from the rule table: README's rule list, the list in
// docs/verdicts/README.md and each verdict page's rules line. With
// LAGSCOPE_UPDATE_DOCS=1 the test rewrites them instead of failing.
const (
	readmeDoc     = "../../CONTRIBUTING.md" // the rules list moved with the rest of the old README
	verdictsDir   = "../../docs/verdicts"
	rulesBegin    = "<!-- rules: begin (from internal/model/rules.go; go test ./internal/model -run RulesAreDocumented, LAGSCOPE_UPDATE_DOCS=1 rewrites it) -->"
	rulesEnd      = "<!-- rules: end -->"
	namesBegin    = "<!-- stage names: begin (from stageNames in internal/model/stagenames.go; go test ./internal/model -run RulesAreDocumented, LAGSCOPE_UPDATE_DOCS=1 rewrites it) -->"
	namesEnd      = "<!-- stage names: end -->"
	physBegin     = "<!-- physical rules: begin (from internal/model/physical_rules.go; go test ./internal/model -run RulesAreDocumented, LAGSCOPE_UPDATE_DOCS=1 rewrites it) -->"
	physEnd       = "<!-- physical rules: end -->"
	rulesLineHead = "Given by the rules "
)

// ruleList is the rule table as a markdown list, in its order.
func ruleList() string {
	var b strings.Builder
	for i, r := range rules {
		names := make([]string, len(r.Verdicts))
		for j, n := range r.Verdicts {
			names[j] = "`" + string(n) + "`"
		}
		fmt.Fprintf(&b, "%d. `%s` → %s: %s\n", i+1, r.ID, strings.Join(names, ", "), r.When)
	}
	return b.String()
}

// physicalRuleList is the physical decision's rule table as a markdown
// list, in its order.
func physicalRuleList() string {
	var b strings.Builder
	for i, r := range physicalRules {
		names := make([]string, len(r.Verdicts))
		for j, n := range r.Verdicts {
			names[j] = "`" + string(n) + "`"
		}
		fmt.Fprintf(&b, "%d. `%s` → %s: %s\n", i+1, r.ID, strings.Join(names, ", "), r.When)
	}
	return b.String()
}

// stageNameTable is stageNames as a markdown table.
func stageNameTable() string {
	var b strings.Builder
	b.WriteString("| limiting stage | what fills its time | verdict |\n|---|---|---|\n")
	for _, r := range stageNames {
		fmt.Fprintf(&b, "| %s | %s | [%s](%s.md) |\n", r.stage, r.resource, r.name, r.name)
	}
	return b.String()
}

// rulesLine is a verdict page's line naming the rules that give it and the
// setup's checks that bear on it.
func rulesLine(verdict VerdictName) string {
	var ids []string
	for _, r := range rules {
		if slices.Contains(r.Verdicts, verdict) {
			ids = append(ids, "`"+r.ID+"`")
		}
	}
	var phys []string
	for _, r := range physicalRules {
		if slices.Contains(r.Verdicts, verdict) {
			phys = append(phys, "`"+r.ID+"`")
		}
	}
	var line string
	switch {
	case len(ids) == 0:
		line = rulesLineHead + "(first match wins, in `internal/model/physical_rules.go`): " + strings.Join(phys, ", ")
	case len(phys) == 0:
		line = rulesLineHead + "(first match wins, in `internal/model/rules.go`): " + strings.Join(ids, ", ")
	default:
		line = rulesLineHead + "(first match wins, in `internal/model/rules.go`): " + strings.Join(ids, ", ") +
			"; on a physical standby's path (`internal/model/physical_rules.go`): " + strings.Join(phys, ", ")
	}
	var checks []string
	for _, c := range SpecOf(verdict).Checks {
		checks = append(checks, fmt.Sprintf("[%s](../checks/%s.md)", c, c))
	}
	if len(checks) > 0 {
		line += "; the setup's checks that bear on it (its cause and first remedies when they find something): " + strings.Join(checks, ", ")
	}
	return line + "."
}

// TestTheRulesAreDocumented checks the rule table against the verdict table
// and the docs: every verdict is given by a rule and has a page that names
// those rules; README and docs/verdicts/README.md list the rules in order.
func TestTheRulesAreDocumented(t *testing.T) {
	update := os.Getenv("LAGSCOPE_UPDATE_DOCS") == "1"
	given := map[VerdictName]bool{}
	ids := map[string]bool{}
	for _, r := range rules {
		if ids[r.ID] || r.ID == "" || r.When == "" || r.match == nil || len(r.Verdicts) == 0 {
			t.Errorf("rule %q is listed twice or incomplete", r.ID)
		}
		ids[r.ID] = true
		for _, n := range r.Verdicts {
			given[n] = true
			if !slices.Contains(Names(), n) {
				t.Errorf("rule %s gives %s, which the verdict table lacks", r.ID, n)
			}
		}
	}
	for _, r := range physicalRules {
		if ids[r.ID] || r.ID == "" || r.When == "" || r.match == nil || len(r.Verdicts) == 0 {
			t.Errorf("physical rule %q is listed twice or incomplete", r.ID)
		}
		ids[r.ID] = true
		for _, n := range r.Verdicts {
			given[n] = true
			if !slices.Contains(Names(), n) {
				t.Errorf("physical rule %s gives %s, which the verdict table lacks", r.ID, n)
			}
		}
	}
	if last := rules[len(rules)-1]; !strings.HasPrefix(last.When, "otherwise") {
		t.Errorf("the last rule (%s) must always hold and say so (\"otherwise\")", last.ID)
	}
	if last := physicalRules[len(physicalRules)-1]; !strings.HasPrefix(last.When, "otherwise") {
		t.Errorf("the last physical rule (%s) must always hold and say so (\"otherwise\")", last.ID)
	}
	for _, n := range Names() {
		if !given[n] {
			t.Errorf("no rule gives verdict %s", n)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(verdictsDir, "*.md"))
	var names []VerdictName
	for _, p := range pages {
		if n := strings.TrimSuffix(filepath.Base(p), ".md"); n != "README" {
			names = append(names, VerdictName(n))
		}
	}
	slices.Sort(names)
	want := slices.Clone(Names())
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("docs/verdicts has pages %v for the verdicts %v", names, want)
	}
	for _, n := range Names() {
		page := filepath.Join(verdictsDir, string(n)+".md")
		checkDoc(t, page, update, func(doc string) string { return withRulesLine(doc, rulesLine(n)) })
	}
	index := filepath.Join(verdictsDir, "README.md")
	checkDoc(t, index, update, func(doc string) string {
		return withBlock(withBlock(withBlock(doc, rulesBegin, rulesEnd, ruleList()), namesBegin, namesEnd, stageNameTable()), physBegin, physEnd, physicalRuleList())
	})
	if b, err := os.ReadFile(index); err == nil {
		for _, n := range Names() {
			if !strings.Contains(string(b), fmt.Sprintf("| [%s](%s.md) |", n, n)) {
				t.Errorf("docs/verdicts/README.md does not list %s in its table", n)
			}
		}
	}
	checkDoc(t, readmeDoc, update, func(doc string) string { return withBlock(doc, rulesBegin, rulesEnd, ruleList()) })
}

// checkDoc compares the file at path with what fix makes of it, and
// rewrites it when update is set.
func checkDoc(t *testing.T, path string, update bool, fix func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	want := fix(doc)
	if want == doc {
		return
	}
	if update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s differs from the rule table (LAGSCOPE_UPDATE_DOCS=1 go test ./internal/model -run RulesAreDocumented rewrites it)", path)
}

// withBlock puts text between the markers begin and end of doc (a note
// added, so the check fails, when the markers are missing).
func withBlock(doc, begin, end, text string) string {
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		return doc + "\n(missing the block " + begin + ")"
	}
	return doc[:i+len(begin)] + "\n" + text + doc[j:]
}

// withRulesLine puts line first in a verdict page's section on its rule
// (the first heading "## Signature..." or "## Rule..."), replacing the one
// there.
func withRulesLine(doc, line string) string {
	i := -1
	for _, h := range []string{"\n## Signature", "\n## Rule"} {
		if k := strings.Index(doc, h); k >= 0 && (i < 0 || k < i) {
			i = k
		}
	}
	if i < 0 {
		return doc + "\n(missing a ## Signature or ## Rule section)"
	}
	eol := i + 1 + strings.Index(doc[i+1:], "\n")
	head, rest := doc[:eol+1]+"\n", strings.TrimPrefix(doc[eol+1:], "\n")
	if strings.HasPrefix(rest, rulesLineHead) {
		rest = rest[strings.Index(rest, "\n\n")+2:]
	}
	return head + line + "\n\n" + rest
}
