package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/lagscope/lagscope/internal/conflict"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/render"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/trouble"
	"github.com/lagscope/lagscope/internal/units"
)

// SchemaVersion is bumped when Report's JSON shape changes. Version 2
// added each path's time series (Path.Series); version 3 prints the
// series' WAL positions as PostgreSQL does ("16/B374D848", numbers of
// bytes before). Version 4 adds each path's setup findings (Path.Setup)
// and the tool's version. Version 5 writes figures that were not
// measured as null (they were -1; the link stage's shares were 0) and
// names the slot's confirmed rate confirmed_mb_per_s (consumed_mb_per_s).
// Version 6 adds each path's time to trouble (Path.Trouble) and its
// subscription's conflicts (Path.Conflicts). Version 7 adds what the
// subscriber did per subscribed table in the window (Path.Tables) and the
// apply workers' own WAL (Path.ApplyWALBytes, 18+), and what each remedy
// that applies is predicted to buy (Path.WhatIf). Version 8 writes each
// remedy as an object, its prose and the statements to run for it
// ({"text", "run"}; a string before, which still reads), and a lock
// blocker's backend_start. Version 9 writes each evidence line as an
// object, its kind, its text and the figures it states ({"key", "text",
// "figures"}; a string before, which still reads with no key), and each
// remedy's key and figures (model.Evidence, model.Advice).
// Read takes every version up to this one.
const SchemaVersion = 9

// Report is one diagnose run.
type Report struct {
	SchemaVersion int    `json:"schema_version"`
	Tool          string `json:"tool"` // "lagscope"
	// ToolVersion is the lagscope that made the report (buildinfo.Version).
	ToolVersion string    `json:"tool_version,omitempty"`
	Start       time.Time `json:"start"`
	WindowS     float64   `json:"window_s"`
	// PositionsS is the time between the first and the last positions
	// read (the first tick to the last): what the rates and "the window"
	// of the paths' lines are over; a tick shorter than WindowS.
	PositionsS float64 `json:"positions_window_s,omitempty"`
	ProbeHz    float64 `json:"probe_hz"`
	Publisher  Server  `json:"publisher"`
	Subscriber *Server `json:"subscriber,omitempty"`
	Paths      []Path  `json:"paths"`
	// Primary and Standby are the servers of a physical standby's report
	// (diagnose --primary/--standby; nil in a logical one, whose Publisher
	// is then empty), and Physical its paths: one per standby.
	Primary  *Server        `json:"primary,omitempty"`
	Standby  *Server        `json:"standby,omitempty"`
	Physical []PhysicalPath `json:"physical_paths,omitempty"`
	Gaps     []string       `json:"gaps,omitempty"`
	// RebuiltFrom is the file the report was rebuilt from (nil: read live).
	RebuiltFrom *render.Source `json:"rebuilt_from,omitempty"`
	Notes       []string       `json:"notes,omitempty"`
}

// Server describes an observed server.
type Server struct {
	Version string `json:"version"`
	// Proc is "" when /proc figures were used, otherwise why not.
	ProcUnavailable string `json:"proc_unavailable,omitempty"`
	// WaitSource is "pg_wait_sampling" when wait events came from that
	// extension's history, at WaitHz observations a second per process
	// ("" = lagscope's own probes, at the report's ProbeHz).
	WaitSource string  `json:"wait_source,omitempty"`
	WaitHz     float64 `json:"wait_hz,omitempty"`
	// ProbeHz is the rate of lagscope's own probes on this server (0:
	// none, or not recorded): by default 10 where this host's /proc shows
	// its processes, 20 where not.
	ProbeHz float64 `json:"probe_hz,omitempty"`
}

// Path is the diagnosis of one slot and the subscription consuming it.
type Path struct {
	Slot         string `json:"slot"`
	Subscription string `json:"subscription,omitempty"`
	model.Verdict
	LagBytes      int64       `json:"lag_bytes"`
	Lag           measure.Lag `json:"lag"`
	GeneratedMBps float64     `json:"generated_mb_per_s"`
	ConfirmedMBps float64     `json:"confirmed_mb_per_s"`
	DecodedMBps   float64     `json:"decoded_mb_per_s"`
	// CatchUp is "in 4m10s" when the backlog shrinks, or "falling behind by
	// 3.2 MB/s" when it grows, or "" when caught up.
	CatchUp string `json:"catch_up,omitempty"`
	// Setup lists the findings of 'lagscope check' that bear on the
	// verdict, for this path's subscription and tables (schema 4+).
	Setup []string `json:"setup_findings,omitempty"`
	// SubWALPerSent is the WAL the subscriber wrote per byte the
	// walsender sent in the window (omitted when unknown).
	SubWALPerSent float64 `json:"sub_wal_per_sent_byte,omitempty"`
	// Tables are the subscription's tables with what the subscriber did
	// to each in the window, from pg_stat_user_tables (schema 7+; nil
	// when the counters were not read).
	Tables []measure.TableWork `json:"tables,omitempty"`
	// ApplyWALBytes is the WAL the subscription's apply workers wrote in
	// the window (pg_stat_get_backend_wal, 18+; 0 when not read).
	ApplyWALBytes int64 `json:"apply_wal_bytes,omitempty"`
	// ApplyIO is the subscription's apply workers' buffer I/O on relations
	// in the window, in blocks (pg_stat_get_backend_io, 18+; nil when not
	// read).
	ApplyIO  *sample.BackendIO `json:"apply_io,omitempty"`
	CatchUpS float64           `json:"catch_up_s,omitempty"`
	// Trouble is when the slot's retained WAL becomes an outage (schema
	// 6+; nil when the window read the slot fewer than twice, or it is
	// lost).
	Trouble *trouble.Slot `json:"time_to_trouble,omitempty"`
	// Conflicts are the subscription's conflicts in the window (schema 6+;
	// nil for samples from before they were read, or without a
	// subscription).
	Conflicts *conflict.Window `json:"conflicts,omitempty"`
	// WhatIf is what each remedy that applies to the path is predicted to
	// buy, with the model each figure rests on (schema 7+; empty when no
	// stage limits).
	WhatIf    []model.Prediction `json:"what_if,omitempty"`
	Walsender measure.Proc       `json:"walsender"`
	Apply     measure.Proc       `json:"apply"`
	// PubCPU and SubCPU are the servers' CPU contention measured from
	// inside them (what stands in for /proc; see measure.Contention).
	PubCPU measure.Contention `json:"publisher_cpu"`
	SubCPU measure.Contention `json:"subscriber_cpu"`
	// Series is the window's time series of the path (schema 2+; nil in
	// reports saved before).
	Series *measure.Series `json:"series,omitempty"`
}

// DrainRate is the path's drain in the window, bytes/s: the faster of its
// decoding and its confirmations (the planner's drain for the rates a
// report keeps).
func (p Path) DrainRate() float64 { return max(p.DecodedMBps, p.ConfirmedMBps) * 1e6 }

// Finding reports whether any path is not caught up: a verdict other than
// caught-up or a table's initial copy in progress (a consumer that confirms
// late and an inconclusive window are findings: lag an operator must look
// at).
func (r Report) Finding() bool {
	for _, p := range r.Paths {
		if model.IsFinding(p.Name) {
			return true
		}
	}
	for _, p := range r.Physical {
		if model.IsFinding(p.Name) {
			return true
		}
	}
	return false
}

// Renderer writes a report in one format.
type Renderer func(io.Writer, Report) error

// Renderers maps format names to renderers.
var Renderers = map[string]Renderer{
	"text":     Text,
	"markdown": Markdown,
	"json":     JSON,
	"html":     HTML,
}

// Render writes r in format.
func Render(w io.Writer, r Report, format string) error {
	return render.RenderWith(Renderers, w, r, format)
}

// JSON writes the report as indented JSON.
func JSON(w io.Writer, r Report) error { return render.IndentedJSON(w, r) }

// Read loads a saved JSON report: a diagnose report, or the diagnosis a
// 'lab run --diagnose --json' result holds. Another of lagscope's files
// (a check report, saved samples, a lab run without a diagnosis) is
// refused with the command that renders it. Its names and enumerated
// fields are checked (Validate).
func Read(rd io.Reader) (Report, error) {
	b, err := io.ReadAll(rd)
	if err != nil {
		return Report{}, fmt.Errorf("read report: %w", err)
	}
	var kind struct {
		Kind      string          `json:"kind"`
		Scenario  string          `json:"scenario"`
		Diagnosis json.RawMessage `json:"diagnosis"`
		Ticks     json.RawMessage `json:"ticks"`
	}
	if err := json.Unmarshal(b, &kind); err != nil {
		return Report{}, fmt.Errorf("read report: %w (is it the output of 'lagscope diagnose --json'?)", err)
	}
	switch {
	case kind.Kind == "check":
		return Report{}, fmt.Errorf("this is a check report: render it with 'lagscope check --input FILE --format text|markdown|json|html'")
	case kind.Ticks != nil:
		return Report{}, fmt.Errorf("these are saved samples, not a report: classify them with 'lagscope diagnose --from-samples FILE'")
	case kind.Scenario != "" && kind.Diagnosis == nil:
		return Report{}, fmt.Errorf("this lab run result holds no diagnosis: make one with 'lagscope lab run %s --diagnose --json'", kind.Scenario)
	case kind.Scenario != "":
		b = kind.Diagnosis
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("read report: %w (is it the output of 'lagscope diagnose --json'?)", err)
	}
	if r.Tool != "lagscope" || r.SchemaVersion == 0 {
		return r, fmt.Errorf("not a lagscope report (no schema_version): save one with 'lagscope diagnose --json > file'")
	}
	if r.SchemaVersion > SchemaVersion {
		return r, fmt.Errorf("report schema %d is newer than this lagscope understands (%d): upgrade lagscope", r.SchemaVersion, SchemaVersion)
	}
	if r.SchemaVersion < 5 {
		// consumed_mb_per_s before version 5.
		var old struct {
			Paths []struct {
				Consumed float64 `json:"consumed_mb_per_s"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(b, &old); err == nil && len(old.Paths) == len(r.Paths) {
			for i := range r.Paths {
				r.Paths[i].ConfirmedMBps = old.Paths[i].Consumed
			}
		}
	}
	if err := r.Validate(); err != nil {
		return Report{}, fmt.Errorf("read report: %w", err)
	}
	return r, nil
}

// CatchUp computes the catch-up line for a lag and rates in bytes/s
// (progress: how fast the backlog drains; basis names the position it was
// measured on, such as "sent_lsn").
func CatchUp(lag int64, generated, progress float64, basis string, caughtUp bool) (string, float64) {
	if caughtUp {
		return "", 0
	}
	const still = model.StillRate // an idle server's occasional records
	net := progress - generated
	switch {
	case progress < still && generated < still:
		return "not moving: nothing generated, nothing consumed", 0
	case progress < still:
		return fmt.Sprintf("falling behind by %s: nothing is consumed", rate(generated)), 0
	case net <= 0:
		return fmt.Sprintf("falling behind by %s", rate(-net)), 0
	case lag <= 0:
		return "caught up by the window's end", 0
	}
	secs := float64(lag) / net
	return fmt.Sprintf("catching up in about %s: drains %s (%s) - generated %s = %s net",
		units.FormatSeconds(secs), units.FormatRate(progress), basis, units.FormatRate(generated), units.FormatRate(net)), secs
}

// rate prints bytes/s (units.FormatRate).
func rate(bps float64) string { return units.FormatRate(bps) }

// probeNote says how wait events were sampled: at one rate, or per server
// when the two servers' rates differ.
func (r Report) probeNote() string {
	if s := r.Subscriber; s != nil && r.Publisher.ProbeHz > 0 && s.ProbeHz > 0 && s.ProbeHz != r.Publisher.ProbeHz {
		return fmt.Sprintf("wait events at %g Hz on the publisher, %g Hz on the subscriber", r.Publisher.ProbeHz, s.ProbeHz)
	}
	if r.ProbeHz <= 0 {
		return "no wait events probed"
	}
	return fmt.Sprintf("wait events at %g Hz", r.ProbeHz)
}

// Sampled says how long the report sampled and, when it differs, over what
// the rates were measured ("10 s sampled (rates over the 9.0 s between the
// first and last positions)").
func (r Report) Sampled() string {
	out := fmt.Sprintf("%.0f s sampled", r.WindowS)
	if r.PositionsS > 0 && r.WindowS-r.PositionsS >= 0.5 {
		out += fmt.Sprintf(" (rates over the %.1f s between the first and last positions)", r.PositionsS)
	}
	return out
}
