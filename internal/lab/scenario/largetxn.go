package scenario

import "github.com/lagscope/lagscope/internal/report"

// diagnosedTxn wants the large transaction named in phase; more, when the
// phase is right, checks what else the state says.
func diagnosedTxn(pa report.Path, phase string, more func(p *problems)) []string {
	var p problems
	if pa.Txn == nil || pa.Txn.Phase != phase {
		p.add("large transaction %+v, want phase %s", pa.Txn, phase)
		return p
	}
	more(&p)
	return p
}
