package layers

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// nameTypes are the defined string types whose constants are the names of
// the model: a constant of a type of one of these names is the one spelling
// of a check, a verdict, a stage, a remedy or a kind of evidence line,
// wherever it is declared.
var nameTypes = []string{"CheckID", "VerdictName", "StageName", "RemedyID", "EvidenceKey"}

// name is one constant of a name type.
type name struct {
	pkg   string // the package declaring it, relative to the module
	ident string // CheckWALLevel
	typ   string // audit.CheckID
	value string
}

func (n name) String() string { return path.Base(n.pkg) + "." + n.ident }

// names are the package-level constants of the name types the packages
// declare, by value.
func names(pkgs []*pkg) map[string][]name {
	out := map[string][]name{}
	for _, p := range pkgs {
		for id, obj := range p.info.Defs {
			c, ok := obj.(*types.Const)
			if !ok || c.Parent() != c.Pkg().Scope() {
				continue
			}
			if typ := nameType(c.Type()); typ != "" && c.Val().Kind() == constant.String {
				v := constant.StringVal(c.Val())
				out[v] = append(out[v], name{pkg: p.path, ident: id.Name, typ: typ, value: v})
			}
		}
	}
	for _, ns := range out {
		sort.Slice(ns, func(i, j int) bool { return ns[i].String() < ns[j].String() })
	}
	return out
}

// nameType is "audit.CheckID" when t is a defined string type named in
// nameTypes, "" otherwise.
func nameType(t types.Type) string {
	n, ok := t.(*types.Named)
	if !ok || !slices.Contains(nameTypes, n.Obj().Name()) || n.Obj().Pkg() == nil {
		return ""
	}
	if b, ok := n.Underlying().(*types.Basic); !ok || b.Info()&types.IsString == 0 {
		return ""
	}
	return n.Obj().Pkg().Name() + "." + n.Obj().Name()
}

// otherName reports whether t is a defined string type that is not one of
// the name types: a literal of it is some other kind of name, declared
// as such.
func otherName(t types.Type) bool {
	named, ok := t.(*types.Named)
	if !ok || nameType(t) != "" {
		return false
	}
	b, ok := named.Underlying().(*types.Basic)
	return ok && b.Kind() == types.String
}

// misspelt is a string literal where a name's constant belongs.
type misspelt struct {
	at, file, value, why string
}

func (m misspelt) String() string { return m.at + ": " + m.why }

// misspelt finds, in the non-test files of every package, the string
// literals (not import paths, not struct tags: comments are no literals)
// whose value is a name's constant declared in another package that the
// literal's package may import (its layer is the constant's or above: a
// package below cannot name the constant, so its word is another thing), and
// the literals used as a name type declared in another package.
func (tr *tree) misspelt() []misspelt {
	byValue := names(tr.pkgs)
	layer := func(p string) int {
		if ls := layerOf(p); len(ls) == 1 {
			return ls[0]
		}
		return len(flow) // unplaced: may see everything (placed reports it)
	}
	var out []misspelt
	for _, p := range tr.pkgs {
		id := tr.module + "/" + p.path
		check := func(f *ast.File, info *types.Info) {
			tags := map[*ast.BasicLit]bool{}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ImportSpec:
					return false
				case *ast.Field:
					if n.Tag != nil {
						tags[n.Tag] = true
					}
				case *ast.BasicLit:
					if n.Kind != token.STRING || tags[n] {
						return true
					}
					v, err := strconv.Unquote(n.Value)
					if err != nil || v == "" {
						// "" is every name type's zero value: no name.
						return true
					}
					if info != nil && otherName(info.Types[n].Type) {
						// A literal of another kind of name (a lab
						// scenario named after the verdict it makes).
						return true
					}
					var use []string
					for _, c := range byValue[v] {
						if c.pkg != p.path && layer(p.path) >= layer(c.pkg) {
							use = append(use, fmt.Sprintf("%s (%s)", c, c.typ))
						}
					}
					typed := ""
					if info != nil {
						if t, ok := info.Types[n]; ok {
							if nt := nameType(t.Type); nt != "" {
								if named := t.Type.(*types.Named); named.Obj().Pkg().Path() != id {
									typed = nt
								}
							}
						}
					}
					switch {
					case len(use) > 0:
						out = append(out, misspelt{tr.at(n.Pos()), tr.file(n.Pos()), v,
							fmt.Sprintf("%q is the value of %s: use the constant", v, strings.Join(use, ", "))})
					case typed != "":
						out = append(out, misspelt{tr.at(n.Pos()), tr.file(n.Pos()), v,
							fmt.Sprintf("the literal %q is used as a %s outside its package: declare the name there as a constant, and use the constant", v, typed)})
					}
				}
				return true
			})
		}
		for _, f := range p.files {
			check(f, p.info)
		}
		for _, f := range p.others {
			check(f, nil)
		}
	}
	return out
}

// exemption lets the literals of values pass in one file, for a reason. An
// exemption a value of which no longer matches fails the test: the list only
// shrinks.
type exemption struct {
	file   string
	values []string
	why    string
}

// exemptions are the literal uses of names the test lets pass, each with
// why.
var exemptions = []exemption{
	{"internal/report/series_table.go", []string{"walsender", "apply"}, "column titles: the processes' CPU, not the stages"},
	{"internal/lab/pair.go", []string{"link"}, "the directory of the lab's link proxy"},
	{"internal/lab/render.go", []string{"walsender"}, "a process's row in the lab's table"},
	{"internal/lab/calibration/plot.go", []string{"walsender"}, "a process's label in the calibration plot"},
	{"internal/lab/reproduce/bottleneck.go", []string{"link"}, "a part of the bottleneck experiment (--only link)"},
}

// judge splits found into the problems no exemption lets pass and the
// exemptions' values that matched nothing.
func judge(found []misspelt, ex []exemption) (problems, stale []string) {
	used := map[string]bool{}
	for _, m := range found {
		ok := false
		for _, e := range ex {
			if e.file == m.file && slices.Contains(e.values, m.value) {
				ok, used[e.file+"\x00"+m.value] = true, true
			}
		}
		if !ok {
			problems = append(problems, m.String())
		}
	}
	for _, e := range ex {
		for _, v := range e.values {
			if !used[e.file+"\x00"+v] {
				stale = append(stale, fmt.Sprintf("%s: the exemption of %q matches no literal any more (%s): remove it", e.file, v, e.why))
			}
		}
	}
	return problems, stale
}

// untypedNames finds the string constants declared with a value but no type
// in a group with constants of a name type: in Go such a constant is an
// untyped string, not a name (only a spec without a value repeats the
// type), so the rule above would not know it.
func (tr *tree) untypedNames() []string {
	var out []string
	for _, p := range tr.pkgs {
		for _, f := range p.files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				typ := ""
				for _, s := range g.Specs {
					for _, id := range s.(*ast.ValueSpec).Names {
						if c, ok := p.info.Defs[id].(*types.Const); ok && nameType(c.Type()) != "" {
							typ = nameType(c.Type())
						}
					}
				}
				if typ == "" {
					continue
				}
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					if vs.Type != nil || len(vs.Values) == 0 {
						continue
					}
					for _, id := range vs.Names {
						if c, ok := p.info.Defs[id].(*types.Const); ok && c.Type() == types.Typ[types.UntypedString] {
							out = append(out, fmt.Sprintf("%s: %s is an untyped string among %s constants: declare it a %s", tr.at(id.Pos()), id.Name, typ, typ))
						}
					}
				}
			}
		}
	}
	return out
}

func TestNoNameIsALiteralOutsideItsPackage(t *testing.T) {
	tr := load(t)
	if len(names(tr.pkgs)) == 0 {
		t.Fatalf("no constant of the name types %v: the test would find nothing", nameTypes)
	}
	problems, stale := judge(tr.misspelt(), exemptions)
	for _, p := range problems {
		t.Error(p)
	}
	for _, s := range stale {
		t.Error(s)
	}
	for _, u := range tr.untypedNames() {
		t.Error(u)
	}
}

// made is a made-up module of packages, each one file, type-checked in the
// order given (importers after what they import).
func made(t *testing.T, files ...[2]string) *tree {
	t.Helper()
	tr := &tree{fset: token.NewFileSet(), root: ".", module: "example.com/m"}
	checked := map[string]*types.Package{}
	imp := importerFunc(func(path string) (*types.Package, error) {
		if p := checked[path]; p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("no package %s", path)
	})
	for _, f := range files {
		dir, src := f[0], f[1]
		file, err := parser.ParseFile(tr.fset, dir+"/x.go", src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		p := &pkg{path: dir, files: []*ast.File{file}, info: &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}}}
		conf := types.Config{Importer: imp}
		tp, err := conf.Check(tr.module+"/"+dir, tr.fset, p.files, p.info)
		if err != nil {
			t.Fatal(err)
		}
		checked[tr.module+"/"+dir] = tp
		tr.pkgs = append(tr.pkgs, p)
	}
	return tr
}

// importerFunc is a types.Importer from a function.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

const madeAudit = `package audit

type CheckID string

// CheckWALLevel is a check's name.
const CheckWALLevel CheckID = "wal-level"

var page = "docs/checks/" + "wal-level" + ".md"
`

// The rule finds a name's spelling where the constant belongs, and only
// there, in modules made up for it.
func TestTheNameRuleFindsLiteralsWhereAConstantBelongs(t *testing.T) {
	for _, c := range []struct {
		name  string
		files [][2]string
		want  []string // each problem, "file:line: " and the start of its text
	}{
		{"the package that declares a name spells it as it likes",
			[][2]string{{"internal/audit", madeAudit}}, nil},
		{"a check's value as a whole literal in a layer above is found, even where audit is not imported",
			[][2]string{{"internal/audit", madeAudit}, {"internal/model", "package model\n\nvar checks = []string{\n\t\"wal-level\",\n}\n"}},
			[]string{`internal/model/x.go:4: "wal-level" is the value of audit.CheckWALLevel (audit.CheckID): use the constant`}},
		{"the same word in a layer below the name's package is another thing",
			[][2]string{{"internal/pg", "package pg\n\nconst setting = \"wal-level\"\n"}, {"internal/audit", madeAudit}}, nil},
		{"comments, struct tags, import paths and longer literals are no uses",
			[][2]string{{"internal/audit", madeAudit}, {"internal/cli", "package cli\n\nimport _ \"example.com/m/internal/audit\"\n\n// \"wal-level\" is a check.\ntype T struct {\n\tA int `wal-level`\n}\n\nvar s = \"wal-level is off\"\n"}},
			nil},
		{"a literal converted to a name type outside its package is found, whatever its value",
			[][2]string{{"internal/audit", madeAudit}, {"internal/cli", "package cli\n\nimport \"example.com/m/internal/audit\"\n\nvar id audit.CheckID = \"new-check\"\n"}},
			[]string{`internal/cli/x.go:5: the literal "new-check" is used as a audit.CheckID outside its package`}},
		{"an untyped string in a group of names is reported, a repeated type is not",
			[][2]string{{"internal/model", "package model\n\ntype VerdictName string\n\nconst (\n\tCaughtUp VerdictName = \"caught-up\"\n\tStalled = \"stalled\"\n)\n\nconst (\n\tA VerdictName = \"a\" + \"\"\n\tB\n)\n"}},
			[]string{"internal/model/x.go:7: Stalled is an untyped string among model.VerdictName constants: declare it a model.VerdictName"}},
		{"a constant of a name type declared elsewhere is a name too",
			[][2]string{{"internal/audit", madeAudit}, {"internal/model", "package model\n\nimport \"example.com/m/internal/audit\"\n\ntype VerdictName string\n\nconst Stalled VerdictName = \"stalled\"\n\nvar _ = audit.CheckWALLevel\n"},
				{"internal/watch", "package watch\n\nfunc stopped(name string) bool { return name == \"stalled\" }\n"}},
			[]string{`internal/watch/x.go:3: "stalled" is the value of model.Stalled (model.VerdictName): use the constant`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := made(t, c.files...)
			var got []string
			for _, m := range tr.misspelt() {
				got = append(got, m.String())
			}
			got = append(got, tr.untypedNames()...)
			if len(got) != len(c.want) {
				t.Fatalf("found %q, want %d problems", got, len(c.want))
			}
			for i, w := range c.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("problem %d is %q, want it to start %q", i, got[i], w)
				}
			}
		})
	}
}

// An exemption lets its file's literals of its values pass, and one that
// matches nothing is reported, so that the list only shrinks.
func TestAnExemptionThatMatchesNothingFails(t *testing.T) {
	found := []misspelt{
		{at: "a/x.go:1", file: "a/x.go", value: "wal-level", why: "use the constant"},
		{at: "b/y.go:2", file: "b/y.go", value: "wal-level", why: "use the constant"},
	}
	problems, stale := judge(found, []exemption{{"a/x.go", []string{"wal-level", "row-filter"}, "moving"}})
	if want := []string{"b/y.go:2: use the constant"}; !slices.Equal(problems, want) {
		t.Errorf("problems %q, want %q", problems, want)
	}
	if len(stale) != 1 || !strings.Contains(stale[0], `a/x.go: the exemption of "row-filter" matches no literal any more`) {
		t.Errorf("stale %q, want the exemption of row-filter", stale)
	}
}
