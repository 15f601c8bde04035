package reproduce

import (
	"fmt"
	"runtime"

	"github.com/lagscope/lagscope/internal/proc"
)

// cpuCostMeasurements are every per-run value of one cpu-cost run; table()
// turns them into the report, without touching a server.
type cpuCostMeasurements struct {
	Runs             int
	Quick            bool
	Major            int // server major version
	PubCPUs, SubCPUs []int
	// Scenarios holds each scenario's runs in run order, by cpuScenario.Name.
	Scenarios map[string][]cpuRun
	// RIFull holds the apply times (s) of the REPLICA IDENTITY FULL trap,
	// by whether the subscriber had an index on id.
	RIFull   map[bool][]float64
	Failures []string
}

func (m *cpuCostMeasurements) addFailure(f string) {
	if f != "" {
		m.Failures = append(m.Failures, f)
	}
}

// Row and ratio names of the cpu-cost table (tests look them up).
const (
	rowPubCPU   = "publisher CPU"
	rowSubCPU   = "subscriber CPU"
	rowTotalCPU = "total CPU"
	rowVsBase   = "vs baseline"
	rowDrain    = "drain after load"
	rowSubWAL   = "subscriber WAL"

	ratioDecodeTotal  = "decode to /dev/null vs no consumer: total CPU"
	ratioApplyTotal   = "apply text vs no consumer: total CPU"
	ratioBinarySubCPU = "apply binary vs apply text: subscriber CPU"
	ratioIndexSubCPU  = "4 extra indexes vs PK only: subscriber CPU"
	ratioBinaryWAL    = "apply binary vs apply text: subscriber WAL"
	ratioIndexWAL     = "4 extra indexes vs PK only: subscriber WAL"
)

// cpuRowName names a scenario's row, e.g. "no consumer: total CPU".
func cpuRowName(scenario, what string) string { return scenario + ": " + what }

// table assembles the report's sections, caveats and failures.
func (m cpuCostMeasurements) table() *Table {
	t := &Table{Failures: m.Failures}
	t.Sections = []Section{m.cpuSection(), m.walSection(), m.riFullSection()}
	t.Caveats = m.caveats()
	return t
}

// perRun maps each run of a scenario to one value.
func (m cpuCostMeasurements) perRun(scenario string, f func(cpuRun) float64) []float64 {
	var v []float64
	for _, r := range m.Scenarios[scenario] {
		v = append(v, f(r))
	}
	return v
}

func (m cpuCostMeasurements) cpuSection() Section {
	s := Section{Title: fmt.Sprintf("Server CPU and drain per scenario (seed 001, medians of %d runs)", m.Runs)}
	total := func(r cpuRun) float64 { return r.PubCPU + r.SubCPU }
	base := m.perRun(cpuScenarios[0].Name, total)
	rows := map[string]Row{}
	for _, sc := range cpuScenarios {
		name := sc.Name
		totals := m.perRun(name, total)
		// Each run against the same run's baseline (runs are interleaved,
		// so they share the machine's state of the moment).
		var rel []float64
		for i, v := range totals {
			if i < len(base) && base[i] > 0 {
				rel = append(rel, v/base[i])
			}
		}
		for _, r := range []Row{
			NewRow(cpuRowName(name, rowPubCPU), sc.Seed.Pub, "s", m.perRun(name, func(r cpuRun) float64 { return r.PubCPU })),
			NewRow(cpuRowName(name, rowSubCPU), sc.Seed.Sub, "s", m.perRun(name, func(r cpuRun) float64 { return r.SubCPU })),
			NewRow(cpuRowName(name, rowTotalCPU), sc.Seed.Total, "s", totals),
			NewRow(cpuRowName(name, rowVsBase), sc.Seed.VsBase, "x", rel),
			NewRow(cpuRowName(name, rowDrain), sc.Seed.Drain, "s", m.perRun(name, func(r cpuRun) float64 { return r.Drain })),
		} {
			s.Rows = append(s.Rows, r)
			rows[r.Name] = r
		}
	}
	ratio := func(name string, seed float64, a, b string) Ratio {
		return NewRatio(name, seed, ratioOf(rows[a], rows[b]), 0, "")
	}
	s.Ratios = []Ratio{
		ratio(ratioDecodeTotal, 1.68, cpuRowName("decode to /dev/null", rowTotalCPU), cpuRowName("no consumer", rowTotalCPU)),
		ratio(ratioApplyTotal, 2.25, cpuRowName("apply text, PK only", rowTotalCPU), cpuRowName("no consumer", rowTotalCPU)),
		ratio(ratioBinarySubCPU, 0.90, cpuRowName("apply binary, PK only", rowSubCPU), cpuRowName("apply text, PK only", rowSubCPU)),
		ratio(ratioIndexSubCPU, 1.59, cpuRowName("apply text, 4 extra indexes", rowSubCPU), cpuRowName("apply text, PK only", rowSubCPU)),
	}
	s.Notes = []string{
		fmt.Sprintf("load: %d clients, %d transactions of %d inserted rows with a 128-character payload (%d rows); a fresh pair of clusters per scenario and run",
			cpuClients, m.transactions(), cpuRowsPerTxn, m.transactions()*cpuRowsPerTxn),
		"CPU: whole server process trees (postmaster, backends, walsender, apply worker, reaped children) from just before pgbench starts until caught up; pgbench and lagscope are not counted",
		"caught up: no consumer = the marker row committed; decode = the consumer received the marker's commit; apply = the marker row is queryable on the subscriber. Drain is from pgbench's end until then",
		"vs baseline: each run's total over the same run's no-consumer total",
	}
	return s
}

// transactions is the load's size for this run.
func (m cpuCostMeasurements) transactions() int {
	if m.Quick {
		return cpuTransactions / 10
	}
	return cpuTransactions
}

func (m cpuCostMeasurements) walSection() Section {
	s := Section{Title: "Subscriber WAL"}
	rows := map[string]Row{}
	sources := map[string]bool{}
	for _, sc := range cpuScenarios {
		if sc.Consumer != applySub {
			continue
		}
		runs := m.Scenarios[sc.Name]
		for _, r := range runs {
			sources[r.WALSource] = true
		}
		r := NewRow(cpuRowName(sc.Name, rowSubWAL), sc.Seed.WAL, "MiB", m.perRun(sc.Name, func(r cpuRun) float64 { return r.SubWAL }))
		s.Rows = append(s.Rows, r)
		rows[sc.Name] = r
	}
	s.Ratios = []Ratio{
		NewRatio(ratioBinaryWAL, 1.00, ratioOf(rows["apply binary, PK only"], rows["apply text, PK only"]), 0.2, ""),
		NewRatio(ratioIndexWAL, 1.99, ratioOf(rows["apply text, 4 extra indexes"], rows["apply text, PK only"]), 0.2, ""),
	}
	s.Notes = []string{"pg_stat_wal reset on the subscriber just before the load; read when caught up (the seed: one representative run)"}
	if sources[walFromLSN] {
		s.Notes = append(s.Notes, "some runs read the subscriber's WAL position difference instead: pg_stat_wal had not settled near it within 5 s")
	}
	return s
}

// caveats lists what this machine cannot reproduce as the seed did.
func (m cpuCostMeasurements) caveats() []string {
	pin := "not pinned"
	if len(m.PubCPUs) > 0 && len(m.SubCPUs) > 0 {
		pin = fmt.Sprintf("pinned: publisher and pgbench on CPU %s, subscriber on CPU %s", proc.FormatCPUList(m.PubCPUs), proc.FormatCPUList(m.SubCPUs))
	}
	c := []string{
		fmt.Sprintf("%d CPUs here, the seed had 10 cores: the servers are %s, so each server's processes (backends, walsender, apply worker) share its CPUs rather than spreading over idle cores as in the seed", runtime.NumCPU(), pin),
		"the decode-to-/dev/null consumer is a pglogrepl client inside lagscope (the seed: pg_recvlogical), not pinned and not counted, like the seed's receiver; on a small machine it takes CPU from the servers",
	}
	if m.Major != 0 && m.Major != 18 {
		c = append(c, fmt.Sprintf("PostgreSQL %d here, the seed ran 18.1", m.Major))
	}
	if m.Major != 0 && m.Major < 16 {
		c = append(c, riFullPre16)
	}
	return c
}
