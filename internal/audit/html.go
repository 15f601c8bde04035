package audit

import (
	_ "embed"
	"html/template"
	"io"
	"strings"

	"github.com/lagscope/lagscope/internal/render"
)

//go:embed html.tmpl
var htmlPage string

var htmlTmpl = template.Must(template.New("check").Funcs(template.FuncMap{
	"style": render.Style,
	"join":  strings.Join,
	// Statements read back from a file are escaped (the page is sanitized
	// too, but a line feed in one would pass as a line of the <pre>).
	"escapeRun": escapeRun,
}).Parse(htmlPage))

// severityGroup is the findings of one severity, for the HTML page.
type severityGroup struct {
	Severity Severity
	Findings []Finding
}

// HTML writes the report as one self-contained page: the findings grouped
// by severity, each with what was found, why it matters and the fix, then
// what was not checked or does not apply, and the checks that passed.
func HTML(w io.Writer, r Report) error {
	data := struct {
		Report
		Servers, Summary string
		Groups           []severityGroup
		NotChecked, NA   []Result
		OK               []string
	}{Report: r, Servers: capitalise(serversLine(r)), Summary: summaryLine(r)}
	for _, sev := range []Severity{Error, Warning, Info} {
		g := severityGroup{Severity: sev}
		for _, f := range r.Findings() {
			if f.Severity == sev {
				g.Findings = append(g.Findings, f)
			}
		}
		if len(g.Findings) > 0 {
			data.Groups = append(data.Groups, g)
		}
	}
	for _, res := range r.Results {
		switch res.Status {
		case StatusNotChecked:
			data.NotChecked = append(data.NotChecked, res)
		case StatusNotApplicable:
			data.NA = append(data.NA, res)
		case StatusOK:
			data.OK = append(data.OK, res.Check)
		}
	}
	return render.ExecutePage(w, htmlTmpl, data)
}
