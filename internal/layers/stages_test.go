package layers

import (
	"fmt"
	"go/ast"
	"go/types"
	"testing"
)

// stageTypes are the element types of a path's stages: a slice of them is
// read by stage name (Stages.Of, Find), never by position, so that a path
// with other stages (a standby's receiver and replay) reads right.
var stageTypes = []string{"Stage"}

// positional lists the places that read an element of a slice of stages
// at a constant index (st[0], p.Stages[2]).
func (tr *tree) positional() []string {
	var out []string
	for _, p := range tr.pkgs {
		if p.info == nil {
			continue
		}
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				ix, ok := n.(*ast.IndexExpr)
				if !ok {
					return true
				}
				if tv, ok := p.info.Types[ix.Index]; !ok || tv.Value == nil {
					return true
				}
				tv, ok := p.info.Types[ix.X]
				if !ok {
					return true
				}
				if el := stageElem(tv.Type); el != "" {
					out = append(out, fmt.Sprintf("%s: a %s read by its position in the slice: find it by its name (Stages.Of)", tr.at(ix.Pos()), el))
				}
				return true
			})
		}
	}
	return out
}

// stageElem is "model.Stage" when t is a slice (or a defined slice type)
// of a stage type, "" otherwise.
func stageElem(t types.Type) string {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return ""
	}
	n, ok := s.Elem().(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	for _, name := range stageTypes {
		if n.Obj().Name() == name {
			return n.Obj().Pkg().Name() + "." + name
		}
	}
	return ""
}

// No stage of a path is read by its position: stages are keyed by name.
func TestNoStageIsReadByItsPosition(t *testing.T) {
	for _, p := range load(t).positional() {
		t.Error(p)
	}
}

// The rule finds a constant index into stages, and lets a variable index
// (a loop) and other slices pass.
func TestThePositionRuleFindsAConstantIndex(t *testing.T) {
	tr := made(t, [2]string{"internal/model", `package model

type Stage struct{ Name string }

type Stages []Stage

func first(st Stages) string { return st[0].Name }

func each(st []Stage) (n int) {
	for i := range st {
		n += len(st[i].Name)
	}
	return n + len([]string{"a"}[0])
}

const apply = 2

func third(st []Stage) Stage { return st[apply] }
`})
	got := tr.positional()
	want := []string{
		"internal/model/x.go:7: a model.Stage read by its position in the slice: find it by its name (Stages.Of)",
		"internal/model/x.go:18: a model.Stage read by its position in the slice: find it by its name (Stages.Of)",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("found %q, want %q", got, want)
	}
}
