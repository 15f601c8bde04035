package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// tree is the module's packages as the rules read them: their imports and
// their non-test files, parsed and type-checked.
type tree struct {
	fset *token.FileSet
	// root is the module's directory; file names are relative to it.
	root string
	// module is the module's path.
	module string
	// pkgs are the module's packages, each import path relative to the
	// module ("internal/audit"), dependencies first.
	pkgs []*pkg
}

// pkg is one package of the module.
type pkg struct {
	// path is the import path relative to the module: "internal/audit",
	// "cmd/lagscope".
	path string
	// imports are the module's packages its non-test files import, deps
	// every module package it depends on through them (relative paths).
	imports, deps []string
	// files are its non-test files built on this platform, parsed and
	// type-checked (info); others are the non-test files other platforms
	// build, parsed only.
	files, others []*ast.File
	info          *types.Info
}

// listed is the part of 'go list -json' the tree is read from.
type listed struct {
	ImportPath string
	Dir        string
	Export     string
	Module     *struct {
		Path string
		Main bool
	}
	GoFiles        []string
	IgnoredGoFiles []string
	Imports        []string
	Deps           []string
}

var (
	theTree    *tree
	theTreeErr error
	treeOnce   sync.Once
)

// load reads the module once for every test of the package.
func load(t *testing.T) *tree {
	t.Helper()
	treeOnce.Do(func() { theTree, theTreeErr = readTree() })
	if theTreeErr != nil {
		t.Fatal(theTreeErr)
	}
	return theTree
}

// readTree lists the module's packages and their dependencies ('go list
// -export -deps', which builds the export data the type checker imports),
// parses the module's non-test files and type-checks them.
func readTree() (*tree, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	cmd := exec.Command("go", "list", "-buildvcs=false", "-export", "-deps", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export -deps ./... in %s: %w: %s", root, err, strings.TrimSpace(stderr.String()))
	}
	var all []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read go list's output: %w", err)
		}
		all = append(all, l)
	}
	export := map[string]string{}
	module := ""
	for _, l := range all {
		export[l.ImportPath] = l.Export
		if l.Module != nil && l.Module.Main {
			module = l.Module.Path
		}
	}
	if module == "" {
		return nil, fmt.Errorf("go list names no package of the module in %s", root)
	}
	tr := &tree{fset: token.NewFileSet(), root: root, module: module}
	imp := importer.ForCompiler(tr.fset, "gc", func(path string) (io.ReadCloser, error) {
		if export[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(export[path])
	})
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			if r, ok := strings.CutPrefix(p, module+"/"); ok {
				out = append(out, r)
			}
		}
		return out
	}
	for _, l := range all {
		path, ok := strings.CutPrefix(l.ImportPath, module+"/")
		if !ok || l.Module == nil || !l.Module.Main {
			continue
		}
		p := &pkg{path: path, imports: rel(l.Imports), deps: rel(l.Deps)}
		if p.files, err = tr.parse(l.Dir, l.GoFiles); err != nil {
			return nil, err
		}
		if p.others, err = tr.parse(l.Dir, l.IgnoredGoFiles); err != nil {
			return nil, err
		}
		p.info = &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(l.ImportPath, tr.fset, p.files, p.info); err != nil {
			return nil, fmt.Errorf("type-check %s: %w", path, err)
		}
		tr.pkgs = append(tr.pkgs, p)
	}
	return tr, nil
}

// parse parses the files of dir named, leaving out test files.
func (tr *tree) parse(dir string, names []string) ([]*ast.File, error) {
	var out []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") || !strings.HasSuffix(n, ".go") {
			continue
		}
		f, err := parser.ParseFile(tr.fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// at is pos as "file:line", the file relative to the module.
func (tr *tree) at(pos token.Pos) string {
	p := tr.fset.Position(pos)
	if r, err := filepath.Rel(tr.root, p.Filename); err == nil {
		p.Filename = filepath.ToSlash(r)
	}
	return fmt.Sprintf("%s:%d", p.Filename, p.Line)
}

// file is the module-relative name of the file holding pos.
func (tr *tree) file(pos token.Pos) string {
	at := tr.at(pos)
	return at[:strings.LastIndexByte(at, ':')]
}
