package scenario

import (
	"slices"
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
)

// Checks the per-row cost scenarios share (check-constraint,
// expression-index, generated-column): one costly object on the
// subscriber's hot that the apply worker pays for on every replicated row.

// minApplyCPUPerRow is the apply worker's CPU per replicated row, seconds,
// from which a per-row cost scenario's object is taken to have been there
// through the window. Measured on 15.18 by hand (UPDATE of 20k rows of the
// lab's hot, one CPU): 5.7 µs a row without an object, 13 with a btree on
// k, 63 with the expression index, 166 with the constraint, 316 with the
// generated column.
const minApplyCPUPerRow = 30e-6

// checkRowCost wants the backlog to outlast the window, the apply worker on
// its CPU (checkApplyOnCPU) and spending at least minApplyCPUPerRow of it
// per row of hot it updated: the object's cost, which the lab's flat table
// without it does not have.
func checkRowCost(p *problems, r *lab.Result) {
	checkApplyOnCPU(p, r)
	if r.DrainedEarly {
		p.add("the backlog drained before the window ended (%.0f s): want it to outlast the window", r.WindowS)
	}
	if r.Recording == nil || r.Apply.CPUShare < 0 {
		return
	}
	var rows float64
	for _, t := range measure.TablesOf(r.Recording) {
		rows += t.PerSecond(t.Updated)
	}
	if rows <= 0 {
		p.add("no row of hot updated in the window (pg_stat_user_tables on the subscriber): want the backlog applied")
		return
	}
	if per := r.Apply.CPUShare / rows; per < minApplyCPUPerRow {
		p.add("apply CPU %.1f µs per row updated (%.0f rows/s at cpu_share %.2f), want >= %.0f µs: the costly object did not cost", 1e6*per, rows, r.Apply.CPUShare, 1e6*minApplyCPUPerRow)
	}
}

// diagnosedRowCost wants the cause to name the costly object (name), and
// no what-if figure for a remedy that does not remove its cost: binary=on
// and disable-trigger never do, drop-extra-indexes only where the object
// is an index (index).
func diagnosedRowCost(pa report.Path, what, name string, index bool) []string {
	var p problems
	if !strings.Contains(pa.Cause, name) {
		p.add("cause %q, want the %s %s named", pa.Cause, what, name)
	}
	noFigure := []model.RemedyID{model.KeyBinaryOn, model.KeyDisableTrigger}
	if !index {
		noFigure = append(noFigure, model.KeyDropExtraIndexes)
	}
	for _, w := range pa.WhatIf {
		if w.Drain > 0 && slices.Contains(noFigure, model.RemedyID(w.Change)) {
			p.add("what if %s predicts %.2fx (%s): it does not remove the %s %s's cost", w.Change, w.Speedup, w.Model, what, name)
		}
	}
	return p
}
