package model

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The tables of docs/json.md listing the evidence keys and the remedy keys,
// generated from their constants' doc comments. With LAGSCOPE_UPDATE_DOCS=1
// the test rewrites them instead of failing.
const (
	jsonDoc        = "../../docs/json.md"
	evidenceBegin  = "<!-- evidence keys: begin (from internal/model/evidencekeys.go; go test ./internal/model -run KeysAreDocumented, LAGSCOPE_UPDATE_DOCS=1 rewrites it) -->"
	evidenceEnd    = "<!-- evidence keys: end -->"
	remediesBegin  = "<!-- remedy keys: begin (from internal/model/advice.go, advicekeys.go and remedies.go; go test ./internal/model -run KeysAreDocumented, LAGSCOPE_UPDATE_DOCS=1 rewrites it) -->"
	remediesEnd    = "<!-- remedy keys: end -->"
	evidenceHeader = "| key | the line states (its figures) |\n|---|---|\n"
	remedyHeader   = "| key | the remedy |\n|---|---|\n"
)

// keyTable lists the constants of type typ declared in files, in their
// order, as a markdown table under header: each key's value and its doc
// comment less the constant's name.
func keyTable(t *testing.T, typ, header string, files ...string) (string, int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(header)
	n := 0
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				id, ok := v.Type.(*ast.Ident)
				if !ok || id.Name != typ || len(v.Values) != 1 {
					continue
				}
				lit, ok := v.Values[0].(*ast.BasicLit)
				if !ok {
					continue
				}
				key, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				doc := strings.Join(strings.Fields(v.Doc.Text()), " ")
				doc = strings.TrimPrefix(doc, v.Names[0].Name+": ")
				if doc == "" {
					t.Errorf("%s: %s has no doc comment", file, v.Names[0].Name)
				}
				fmt.Fprintf(&b, "| `%s` | %s |\n", key, doc)
				n++
			}
		}
	}
	return b.String(), n
}

// TestKeysAreDocumented checks that docs/json.md lists every evidence key
// and every remedy key, with what each means, as their constants say it.
func TestKeysAreDocumented(t *testing.T) {
	b, err := os.ReadFile(jsonDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	evidence, nev := keyTable(t, "EvidenceKey", evidenceHeader, "evidencekeys.go")
	remedies, nrem := keyTable(t, "RemedyID", remedyHeader, "advice.go", "advicekeys.go", "remedies.go")
	if nev < 50 || nrem < 50 {
		t.Fatalf("%d evidence keys and %d remedy keys found in the source: the parse missed them", nev, nrem)
	}
	for _, s := range []struct{ begin, end, table string }{{evidenceBegin, evidenceEnd, evidence}, {remediesBegin, remediesEnd, remedies}} {
		i, j := strings.Index(doc, s.begin), strings.Index(doc, s.end)
		if i < 0 || j < i {
			t.Fatalf("%s lacks the markers %q ... %q", jsonDoc, s.begin, s.end)
		}
		want := s.begin + "\n\n" + s.table + "\n" + s.end
		if doc[i:j+len(s.end)] == want {
			continue
		}
		if os.Getenv("LAGSCOPE_UPDATE_DOCS") == "" {
			t.Errorf("%s: the table after %q differs from the keys' constants: run with LAGSCOPE_UPDATE_DOCS=1", jsonDoc, s.begin)
			continue
		}
		doc = doc[:i] + want + doc[j+len(s.end):]
	}
	if os.Getenv("LAGSCOPE_UPDATE_DOCS") != "" {
		if err := os.WriteFile(jsonDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
