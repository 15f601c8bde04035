package layers

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// layer is one height of the flow: a set of the module's packages, each an
// import path relative to the module; "dir/..." is dir and every package
// under it.
type layer struct {
	// name is the layer's short name, then after a colon what it holds.
	name string
	pkgs []string
	// apart marks the layers that stand apart from the product (the lab
	// and the test kit): the drawing dashes them.
	apart bool
}

// flow is the tree's layers, lowest first. A package imports only packages
// of its own layer or of the layers below it: the flow reads sample ->
// measure -> model -> report -> the pipelines -> the commands -> the
// binaries, with the static checks below everything that measures or
// decides, and the lab above the product it drives. A new package is placed
// here, in the lowest layer that holds everything it imports. Some
// packages are listed before they exist: those issue 38's layout names.
var flow = []layer{
	{name: "foundations: values and helpers every layer uses", pkgs: []string{
		"internal/buildinfo", "internal/lsn", "internal/median", "internal/pgversion", "internal/quote",
		"internal/render", "internal/safefile", "internal/sleep", "internal/units", "internal/unknown", "internal/valid",
	}},
	{name: "reading: sessions on the servers, the host's /proc", pkgs: []string{
		"internal/pg", "internal/sqltext", "internal/proc", "internal/host",
	}},
	{name: "checks: the static audit of a setup", pkgs: []string{"internal/audit"}},
	{name: "topology: nodes, roles and paths", pkgs: []string{"internal/topology"}},
	{name: "sample: the recording and the probe loop", pkgs: []string{"internal/sample", "internal/recorder"}},
	{name: "measure: pure figures over a recording", pkgs: []string{"internal/measure", "internal/trouble", "internal/conflict"}},
	{name: "model: everything that decides", pkgs: []string{"internal/model"}},
	{name: "report: the structured report and its renderers", pkgs: []string{"internal/report"}},
	{name: "pipelines: a window once, or rolling", pkgs: []string{
		"internal/pipeline", "internal/diagnose", "internal/monitor", "internal/watch", "internal/exporter", "internal/timeline",
	}},
	{name: "lab: clusters, proxy, scenarios, reproduction, calibration", pkgs: []string{"internal/lab/..."}, apart: true},
	{name: "test kit: helpers for tests only", pkgs: []string{"internal/testkit/..."}, apart: true},
	{name: "commands: flags and wiring", pkgs: []string{"internal/cli", "internal/docgen"}},
	{name: "binaries: the programs, the release's test, these rules", pkgs: []string{"cmd/...", "internal/release", "internal/layers"}},
}

// layerOf is the index in flow of every layer that lists path.
func layerOf(path string) []int {
	var out []int
	for i, l := range flow {
		for _, pat := range l.pkgs {
			if dir, ok := strings.CutSuffix(pat, "/..."); ok && (path == dir || strings.HasPrefix(path, dir+"/")) || pat == path {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// importRule is one rule over the module's imports: the problems it finds.
type importRule func(pkgs []*pkg) []string

// placed: every package is in exactly one layer.
func placed(pkgs []*pkg) []string {
	var out []string
	for _, p := range pkgs {
		switch ls := layerOf(p.path); len(ls) {
		case 0:
			out = append(out, fmt.Sprintf("%s is in no layer: place it in flow (internal/layers/flow_test.go), in the lowest layer that holds everything it imports", p.path))
		case 1:
		default:
			var names []string
			for _, l := range ls {
				names = append(names, fmt.Sprintf("%q", flow[l].name))
			}
			out = append(out, fmt.Sprintf("%s is in %d layers (%s): keep it in one", p.path, len(ls), strings.Join(names, ", ")))
		}
	}
	return out
}

// downward: no package imports a package of a layer above its own.
func downward(pkgs []*pkg) []string {
	var out []string
	for _, p := range pkgs {
		from := layerOf(p.path)
		if len(from) != 1 {
			continue // placed reports it
		}
		for _, imp := range p.imports {
			to := layerOf(imp)
			if len(to) == 1 && to[0] > from[0] {
				out = append(out, fmt.Sprintf("%s (layer %q) imports %s, of the layer above it %q: move the code it needs down, or the importer up", p.path, flow[from[0]].name, imp, flow[to[0]].name))
			}
		}
	}
	return out
}

// dependsOnNone returns a rule: the packages matching who depend (directly or
// not) on no package matching any of banned.
func dependsOnNone(who func(string) bool, banned []string, why string) importRule {
	return func(pkgs []*pkg) []string {
		var out []string
		for _, p := range pkgs {
			if !who(p.path) {
				continue
			}
			for _, d := range p.deps {
				if slices.ContainsFunc(banned, func(b string) bool { return under(d, b) }) {
					out = append(out, fmt.Sprintf("%s depends on %s: %s", p.path, d, why))
				}
			}
		}
		return out
	}
}

// under says whether path is dir or a package under it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// The rules over the imports, each a sentence.
var importRules = []struct {
	name string
	rule importRule
}{
	{"every package is placed in exactly one layer", placed},
	{"no package imports a package of a layer above its own", downward},
	{"the static checks depend on no report, decision, measure or sample package",
		dependsOnNone(func(p string) bool { return under(p, "internal/audit") },
			[]string{"internal/report", "internal/model", "internal/measure", "internal/sample"},
			"the static checker reads the catalogs and decides alone (render holds what its reports share)")},
	{"only the lab, the test kit, the commands and the binaries depend on the lab",
		dependsOnNone(func(p string) bool {
			return !under(p, "internal/lab") && !under(p, "internal/testkit") && !under(p, "internal/cli") && !under(p, "cmd")
		}, []string{"internal/lab"}, "the product does not depend on the lab (its tests may)")},
	{"no product package depends on the test kit",
		dependsOnNone(func(p string) bool { return !under(p, "internal/testkit") },
			[]string{"internal/testkit"}, "the test kit is for tests only")},
}

func TestTheImportsFollowTheFlow(t *testing.T) {
	tr := load(t)
	for _, r := range importRules {
		t.Run(r.name, func(t *testing.T) {
			for _, p := range r.rule(tr.pkgs) {
				t.Error(p)
			}
		})
	}
}

// Each rule finds what it is there to find, in a tree made up for it.
func TestTheImportRulesCatchWhatTheyForbid(t *testing.T) {
	rule := func(name string) importRule {
		for _, r := range importRules {
			if r.name == name {
				return r.rule
			}
		}
		t.Fatalf("no rule %q", name)
		return nil
	}
	for _, c := range []struct {
		name string
		rule string
		pkgs []*pkg
		want []string // a substring of each problem, in order
	}{
		{"a package no layer lists is told to be placed", "every package is placed in exactly one layer",
			[]*pkg{{path: "internal/audit"}, {path: "internal/newthing"}},
			[]string{"internal/newthing is in no layer"}},
		{"a package under the lab is placed by the lab's pattern", "every package is placed in exactly one layer",
			[]*pkg{{path: "internal/lab/scenario"}, {path: "cmd/lagscope"}}, nil},
		{"measure importing the decision model is an import up a layer", "no package imports a package of a layer above its own",
			[]*pkg{{path: "internal/measure", imports: []string{"internal/sample", "internal/model"}}},
			[]string{"internal/measure (layer \"measure: pure figures over a recording\") imports internal/model"}},
		{"packages of one layer may import each other", "no package imports a package of a layer above its own",
			[]*pkg{{path: "internal/measure", imports: []string{"internal/trouble"}}, {path: "internal/watch", imports: []string{"internal/monitor", "internal/report"}}}, nil},
		{"audit depending on sample through another package is found", "the static checks depend on no report, decision, measure or sample package",
			[]*pkg{{path: "internal/audit", imports: []string{"internal/pg"}, deps: []string{"internal/pg", "internal/sample"}}},
			[]string{"internal/audit depends on internal/sample"}},
		{"audit depending on the shared renderer is fine", "the static checks depend on no report, decision, measure or sample package",
			[]*pkg{{path: "internal/audit", deps: []string{"internal/render", "internal/quote"}}}, nil},
		{"a pipeline depending on the lab is found", "only the lab, the test kit, the commands and the binaries depend on the lab",
			[]*pkg{{path: "internal/exporter", deps: []string{"internal/lab/cluster"}}, {path: "internal/cli", deps: []string{"internal/lab"}}},
			[]string{"internal/exporter depends on internal/lab/cluster"}},
		{"a product package depending on the test kit is found", "no product package depends on the test kit",
			[]*pkg{{path: "internal/diagnose", deps: []string{"internal/testkit/recordings"}}, {path: "internal/testkit/labpair", deps: []string{"internal/testkit/labtest"}}},
			[]string{"internal/diagnose depends on internal/testkit/recordings"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := rule(c.rule)(c.pkgs)
			if len(got) != len(c.want) {
				t.Fatalf("got %d problems %q, want %d", len(got), got, len(c.want))
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d is %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}
