package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/lagscope/lagscope/internal/buildinfo"
	"github.com/lagscope/lagscope/internal/render"
)

// SchemaVersion is bumped when Report's JSON shape changes incompatibly.
// Version 2: a finding's fix is prose and its statements are in run, each
// built by the quoting layer; in version 1 the fix text held the statements
// and there was no run. Both are read.
const SchemaVersion = 2

// ReportKind tells a check report from lagscope's other JSON outputs.
const ReportKind = "check"

// Report is the outcome of one 'lagscope check' run.
type Report struct {
	SchemaVersion int    `json:"schema_version"`
	Tool          string `json:"tool"` // "lagscope"
	// ToolVersion is the lagscope that made the report (buildinfo.Version).
	ToolVersion string    `json:"tool_version,omitempty"`
	Kind        string    `json:"kind"` // "check"
	Taken       time.Time `json:"taken"`
	Publisher   *Server   `json:"publisher,omitempty"`
	Subscriber  *Server   `json:"subscriber,omitempty"`
	// Standby and Primary are the physical standby and its primary
	// (check --standby, --primary).
	Standby *Server `json:"standby,omitempty"`
	Primary *Server `json:"primary,omitempty"`
	Summary Summary `json:"summary"`
	// RebuiltFrom is the file the report was rebuilt from (nil: read live).
	RebuiltFrom *render.Source `json:"rebuilt_from,omitempty"`
	// Results has one entry per check, in the order of All.
	Results []Result `json:"results"`
}

// Server describes a checked server.
type Server struct {
	Version  string `json:"version"`
	Database string `json:"database"`
}

// Summary counts findings by severity and checks by status.
type Summary struct {
	Errors        int `json:"errors"`
	Warnings      int `json:"warnings"`
	Infos         int `json:"infos"`
	OK            int `json:"ok"`
	WithFindings  int `json:"with_findings"`
	NotApplicable int `json:"not_applicable"`
	NotChecked    int `json:"not_checked"`
}

// NewReport builds the report of results over s.
func NewReport(s Snapshots, results []Result) Report {
	r := Report{SchemaVersion: SchemaVersion, Tool: "lagscope", ToolVersion: buildinfo.Version(), Kind: ReportKind, Results: results}
	if p := s.Publisher; p != nil {
		r.Publisher = &Server{Version: p.Version.String(), Database: p.Database}
		r.Taken = p.Taken
	}
	if sub := s.Subscriber; sub != nil {
		r.Subscriber = &Server{Version: sub.Version.String(), Database: sub.Database}
		if r.Taken.IsZero() {
			r.Taken = sub.Taken
		}
	}
	if sb := s.Standby; sb != nil {
		r.Standby = &Server{Version: sb.Version.String(), Database: sb.Database}
		if r.Taken.IsZero() {
			r.Taken = sb.Taken
		}
	}
	if pr := s.Primary; pr != nil {
		r.Primary = &Server{Version: pr.Version.String(), Database: pr.Database}
	}
	for _, res := range results {
		switch res.Status {
		case StatusOK:
			r.Summary.OK++
		case StatusFindings:
			r.Summary.WithFindings++
		case StatusNotApplicable:
			r.Summary.NotApplicable++
		case StatusNotChecked:
			r.Summary.NotChecked++
		}
		for _, f := range res.Findings {
			switch f.Severity {
			case Error:
				r.Summary.Errors++
			case Warning:
				r.Summary.Warnings++
			default:
				r.Summary.Infos++
			}
		}
	}
	return r
}

// Problems reports whether the run found errors or warnings (exit code 1).
func (r Report) Problems() bool { return r.Summary.Errors+r.Summary.Warnings > 0 }

// Findings returns every finding, worst first, in check order within a
// severity.
func (r Report) Findings() []Finding {
	var out []Finding
	for _, res := range r.Results {
		out = append(out, res.Findings...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity.rank() < out[j].Severity.rank() })
	return out
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

// ReadReport loads a report saved with 'lagscope check --json' and checks
// its check IDs, statuses, sides and severities against this lagscope's.
func ReadReport(rd io.Reader) (Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return r, fmt.Errorf("read check report: %w (is it the output of 'lagscope check --json'?)", err)
	}
	if r.Tool != "lagscope" || r.Kind != ReportKind || r.SchemaVersion == 0 {
		return r, fmt.Errorf("not a lagscope check report: save one with 'lagscope check ... --json > file'")
	}
	if r.SchemaVersion > SchemaVersion {
		return r, fmt.Errorf("check report schema %d is newer than this lagscope understands (%d): upgrade lagscope", r.SchemaVersion, SchemaVersion)
	}
	if err := r.validate(); err != nil {
		return Report{}, err
	}
	if r.SchemaVersion == 1 {
		// A version 1 report's fix text is shown as it was; it had no
		// statements of their own, and a run in such a file is not one
		// lagscope wrote.
		for i := range r.Results {
			for j := range r.Results[i].Findings {
				r.Results[i].Findings[j].Run = nil
			}
		}
	}
	return r, nil
}

// ReadSnapshots loads snapshots saved with 'lagscope check --save-snapshots'
// and checks their names and enumerated fields (Snapshots.Validate).
func ReadSnapshots(rd io.Reader) (Snapshots, error) {
	var s Snapshots
	if err := json.NewDecoder(rd).Decode(&s); err != nil {
		return s, fmt.Errorf("read snapshots: %w (is it a file written by 'lagscope check --save-snapshots'?)", err)
	}
	if s.Publisher == nil && s.Subscriber == nil && s.Standby == nil {
		return s, fmt.Errorf("read snapshots: no publisher, subscriber or standby snapshot in it")
	}
	if err := s.Validate(); err != nil {
		return Snapshots{}, fmt.Errorf("read snapshots: %w", err)
	}
	return s, nil
}
