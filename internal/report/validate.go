package report

import (
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/valid"
)

var (
	stageNames = names(model.StageWalsender, model.StageLink, model.StageApply, model.StageParallel)
	// physStages are a physical path's stages.
	physStages = names(model.StageWalsender, model.StageLink, model.StageReceiver, model.StageReplay)
	stageRoles = []string{"", "limit", "next"}
)

// Validate checks the names and enumerated fields of a report read from a
// file (package valid): each path's slot by PostgreSQL's rule and its
// subscription as a name, its verdict against model.Table, its stages,
// limit and next limit against the stage names. The first failure is
// returned, naming its field.
func (r Report) Validate() error {
	var c valid.Checker
	verdicts := names(model.Names()...)
	for i, p := range r.Paths {
		f := valid.At("paths", i)
		c.Slot(f+".slot", p.Slot)
		c.OptionalName(f+".subscription", p.Subscription)
		c.OneOf(f+".verdict", string(p.Name), verdicts)
		if p.Limit != "" {
			c.OneOf(f+".limit", string(p.Limit), stageNames)
		}
		if p.Next != nil {
			c.OneOf(f+".next_limit.stage", string(p.Next.Stage), stageNames)
		}
		for _, list := range []struct {
			name   string
			advice []model.Advice
		}{{"helps", p.Helps}, {"does_not_help", p.NotHelps}} {
			for j, a := range list.advice {
				c.Statements(f+"."+valid.At(list.name, j)+".run", a.Run)
			}
		}
		for j, s := range p.Stages {
			sf := f + "." + valid.At("stages", j)
			c.OneOf(sf+".stage", string(s.Name), stageNames)
			c.OneOf(sf+".role", s.Role, stageRoles)
		}
	}
	for i, p := range r.Physical {
		f := valid.At("physical_paths", i)
		c.OneOf(f+".verdict", string(p.Name), verdicts)
		if p.Limit != "" {
			c.OneOf(f+".limit", string(p.Limit), physStages)
		}
		for j, a := range p.Helps {
			c.Statements(f+"."+valid.At("helps", j)+".run", a.Run)
		}
		for j, s := range p.Stages {
			sf := f + "." + valid.At("stages", j)
			c.OneOf(sf+".stage", string(s.Name), physStages)
			c.OneOf(sf+".role", s.Role, stageRoles)
		}
		for j, l := range p.LagPerStage {
			c.OneOf(f+"."+valid.At("lag_per_stage", j)+".stage", string(l.Stage), physStages)
		}
	}
	return c.Err
}

// names are typed names (verdicts, stages) as the strings a report holds.
func names[T ~string](ns ...T) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n)
	}
	return out
}
