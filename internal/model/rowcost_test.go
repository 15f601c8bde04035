package model

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

// The apply worker's per-row evidence: its CPU per row applied and the
// share of its CPU per MB of WAL written the calibrated cost explains, with
// the setup's cost sources; "not measured" without /proc; nothing when the
// apply worker does not limit busy.
func TestApplyRowCostEvidence(t *testing.T) {
	apply := st(StageApply, 1, 0, 0)
	apply.Role = "limit"
	p := PathFacts{Verdict: Verdict{Stages: []Stage{apply}}, Summary: measure.Summary{Consumed: 10e6}, SubWALPerSent: 1.5,
		Tables: []measure.TableWork{{Schema: "public", Name: "hot\x1b", Seconds: 10, TableCounts: sample.TableCounts{Updated: 100_000}}}}
	costs := RowCosts{Read: true, Sources: []audit.RowCost{{Table: "public.hot", Kind: audit.CostCheck, Object: "price_ok"}}}
	e := rowCostEvidence(p, costs)
	// 1 / (10 MB/s * 1.5) = 66.7 ms a MB of WAL: 30 of it explained, 45%
	if e.Key != EvApplyRowCost || e.Figures["rows"] != 100_000 || e.Figures["cpu_per_row_s"] != 1e-4 ||
		e.Figures["explained_share"] < 0.449 || e.Figures["explained_share"] > 0.451 {
		t.Errorf("%+v", e)
	}
	for _, want := range []string{"100.0 µs of CPU per row", `public.U&"hot\001B"`, "explains 45%", "CHECK constraint price_ok on public.hot"} {
		if !strings.Contains(e.Text, want) {
			t.Errorf("%q lacks %q", e.Text, want)
		}
	}
	p.Verdict.Stages[0].CPU = -1
	if e := rowCostEvidence(p, costs); !strings.Contains(e.Text, "not measured") || e.Figures != nil {
		t.Errorf("without /proc: %+v", e)
	}
	p.Verdict.Stages[0] = st(StageApply, 1, 0, 0.9)
	p.Verdict.Stages[0].Role = "limit"
	if e := rowCostEvidence(p, costs); e.Key != "" {
		t.Errorf("an apply worker that waits: %+v", e)
	}
}
