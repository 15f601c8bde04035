package layers

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/layout.md from the imports")

// layoutPage is where the drawing of the layers is kept, from the module's
// root.
const layoutPage = "docs/layout.md"

// layerEdges are the layers each layer's packages import (besides its
// own), by index in flow: edges[i] lists j when a package of layer i
// imports one of layer j. Packages in no layer or in several are left out
// (placed reports them).
func layerEdges(pkgs []*pkg) map[int][]int {
	edges := map[int][]int{}
	for _, p := range pkgs {
		from := layerOf(p.path)
		if len(from) != 1 {
			continue
		}
		for _, imp := range p.imports {
			if to := layerOf(imp); len(to) == 1 && to[0] != from[0] && !slices.Contains(edges[from[0]], to[0]) {
				edges[from[0]] = append(edges[from[0]], to[0])
			}
		}
	}
	for i := range edges {
		slices.Sort(edges[i])
	}
	return edges
}

// reduced drops from edges each i -> j that a longer path i -> k -> ... -> j
// already implies (the transitive reduction of an acyclic graph), so that
// the drawing shows the flow, not every shortcut.
func reduced(edges map[int][]int) map[int][]int {
	var reaches func(from, to int, seen map[int]bool) bool
	reaches = func(from, to int, seen map[int]bool) bool {
		if from == to {
			return true
		}
		if seen[from] {
			return false
		}
		seen[from] = true
		for _, k := range edges[from] {
			if reaches(k, to, seen) {
				return true
			}
		}
		return false
	}
	out := map[int][]int{}
	for i, js := range edges {
		for _, j := range js {
			implied := false
			for _, k := range js {
				if k != j && reaches(k, j, map[int]bool{}) {
					implied = true
				}
			}
			if !implied {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// drawLayout writes docs/layout.md: a drawing of the layers (each with its
// packages, an arrow to each layer it uses that no other path implies, the
// lab and the test kit dashed, apart) and a table of every layer's packages
// and the layers they import.
func drawLayout(pkgs []*pkg) string {
	members := map[int][]string{}
	for _, p := range pkgs {
		if ls := layerOf(p.path); len(ls) == 1 {
			members[ls[0]] = append(members[ls[0]], p.path)
		}
	}
	for _, m := range members {
		slices.Sort(m)
	}
	short := func(i int) string { n, _, _ := strings.Cut(flow[i].name, ":"); return n }
	var b strings.Builder
	b.WriteString(`# The package layout

The tree's packages in layers, lowest at the bottom, drawn from the imports of their non-test
files. A package imports only packages of its own layer and of the layers below it; the lab and
the test kit (dashed) stand apart: only the lab itself, the test kit, ` + "`internal/cli` and `cmd/`" + `
depend on the lab. The layers are written in ` + "`internal/layers/flow_test.go`" + `, whose tests
hold the imports to them and rewrite this page (` + "`go test ./internal/layers -update`" + `); an
arrow is left out where a longer path already implies it.

` + "```mermaid" + `
flowchart TB
`)
	var apart []string
	for i := len(flow) - 1; i >= 0; i-- {
		if len(members[i]) == 0 {
			continue
		}
		var names []string
		for _, m := range members[i] {
			names = append(names, strings.TrimPrefix(m, "internal/"))
		}
		fmt.Fprintf(&b, "  l%d[\"<b>%s</b><br/>%s\"]\n", i, short(i), strings.Join(names, ", "))
		if flow[i].apart {
			apart = append(apart, fmt.Sprintf("l%d", i))
		}
	}
	edges := layerEdges(pkgs)
	red := reduced(edges)
	for i := len(flow) - 1; i >= 0; i-- {
		for _, j := range red[i] {
			fmt.Fprintf(&b, "  l%d --> l%d\n", i, j)
		}
	}
	if len(apart) > 0 {
		fmt.Fprintf(&b, "  classDef apart stroke-dasharray: 5 5\n  class %s apart\n", strings.Join(apart, ","))
	}
	b.WriteString("```\n\n| layer | what it holds | packages | imports from the layers |\n|---|---|---|---|\n")
	for i := len(flow) - 1; i >= 0; i-- {
		if len(members[i]) == 0 {
			continue
		}
		_, what, _ := strings.Cut(flow[i].name, ":")
		var uses []string
		for _, j := range slices.Backward(edges[i]) {
			uses = append(uses, short(j))
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s |\n", short(i), strings.TrimSpace(what), strings.Join(members[i], "`, `"), strings.Join(uses, ", "))
	}
	return b.String()
}

// The drawing of the layers in docs/layout.md is the one the imports make
// today.
func TestTheLayoutPageIsDrawnFromTheImports(t *testing.T) {
	tr := load(t)
	page := filepath.Join(tr.root, layoutPage)
	want := drawLayout(tr.pkgs)
	if *update {
		if err := os.WriteFile(page, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("%v: write it with go test ./internal/layers -update", err)
	}
	if string(got) != want {
		t.Errorf("%s is not drawn from today's imports: rewrite it with go test ./internal/layers -update", layoutPage)
	}
}

// The drawing keeps only the arrows no longer path implies.
func TestTheDrawingLeavesOutImpliedArrows(t *testing.T) {
	for _, c := range []struct {
		name        string
		edges, want map[int][]int
	}{
		{"a shortcut past a middle layer is left out",
			map[int][]int{2: {0, 1}, 1: {0}}, map[int][]int{2: {1}, 1: {0}}},
		{"two layers that use one below without each other both keep their arrow",
			map[int][]int{2: {0}, 1: {0}}, map[int][]int{2: {0}, 1: {0}}},
		{"a long chain keeps only its steps",
			map[int][]int{3: {0, 1, 2}, 2: {0, 1}, 1: {0}}, map[int][]int{3: {2}, 2: {1}, 1: {0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := reduced(c.edges)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i, js := range c.want {
				if !slices.Equal(got[i], js) {
					t.Errorf("layer %d: got %v, want %v", i, got[i], js)
				}
			}
		})
	}
}
