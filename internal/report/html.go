package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/render"
	"github.com/lagscope/lagscope/internal/units"
)

// htmlPage is the template of the HTML report: one self-contained file,
// styles inline, charts as inline SVG, no scripts, nothing fetched.
//
//go:embed html.tmpl
var htmlPage string

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"style": render.Style,
	"bytes": func(n int64) string { return units.FormatBytes(float64(n)) },
	"pct":   units.Percent,
	"rate":  func(mbps float64) string { return rate(mbps * 1e6) },
	"svg":   func(s string) template.HTML { return template.HTML(s) }, // drawn by gonum/plot, which escapes its labels' markup (the page is sanitized as a whole)
	"stageTable": func(p Path) [][]string {
		_, rows := StageTable(p.Stages)
		return rows
	},
	"stageHeader": func() []string { return stageHeader },
	"tableRows":   tableRows,
	"tableHeader": func() []string { return tableHeader },
	"tableTitle":  func() string { return tableTitle },
	"applyWAL":    applyWALLine,
	"pipeline":    pipeline,
	"limitClass": func(p Path) string {
		if p.Limit == "" && p.Name != model.Stalled && p.Name != model.Inconclusive {
			return "ok"
		}
		return "limit"
	},
	"join":       strings.Join,
	"physLag":    func(p PhysicalPath) string { return p.lagLine() },
	"physRates":  func(p PhysicalPath) string { return p.ratesLine() },
	"physSender": func(p PhysicalPath) string { return p.senderLine() },
	"physStages": func(p PhysicalPath) [][]string { return stageRows(p.Stages) },
}).Parse(htmlPage))

// htmlPath is one path with its charts drawn.
type htmlPath struct {
	Path
	Charts []Chart
}

// Preface is a block of preformatted text shown above the diagnosis (the
// lab's own measurement on a 'lab run' page).
type Preface struct {
	Title, Text string
}

// HTML writes the report as one self-contained HTML page with charts.
func HTML(w io.Writer, r Report) error { return HTMLPage(w, r) }

// htmlData is what the report's template reads: the report, its paths
// with their charts drawn, the prefaces.
type htmlData struct {
	Report
	Paths    []htmlPath
	Prefaces []Preface
}

func newHTMLData(r Report, prefaces []Preface) (htmlData, error) {
	data := htmlData{Report: r, Prefaces: prefaces}
	for _, p := range r.Paths {
		ch, err := Charts(p)
		if err != nil {
			return data, err
		}
		data.Paths = append(data.Paths, htmlPath{Path: p, Charts: ch})
	}
	return data, nil
}

// HTMLPage is HTML with prefaces above the diagnosis.
func HTMLPage(w io.Writer, r Report, prefaces ...Preface) error {
	data, err := newHTMLData(r, prefaces)
	if err != nil {
		return err
	}
	return render.ExecutePage(w, htmlTmpl, data)
}

// HTMLFragment is the report as the HTML page's body shows it below its
// title (the servers' line, each path with its charts, the notes), for a
// page that holds several reports: 'lagscope timeline --format html'
// shows each incident's. It is escaped and sanitized as the page is; the
// page holding it brings the stylesheet (render.Style).
func HTMLFragment(r Report) (template.HTML, error) {
	data, err := newHTMLData(r, nil)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := htmlTmpl.ExecuteTemplate(&b, "content", data); err != nil {
		return "", err
	}
	return template.HTML(quote.Sanitize(b.String(), "\n\t")), nil
}

// pipeBox is one stage of the HTML pipeline picture.
type pipeBox struct {
	Name, Util, Role string
	// Width is the utilisation bar's width, percent (0 when unknown).
	Width int
}

// pipeline is the path's stages in order (walsender, link, apply, parallel
// apply), each with its utilisation and its role (limit, next): the
// picture above the charts.
func pipeline(p Path) []pipeBox {
	var out []pipeBox
	for _, st := range p.Stages {
		b := pipeBox{Name: string(st.Name), Role: st.Role, Util: "not measured"}
		if st.Known() {
			b.Util = fmt.Sprintf("%.0f%% busy", 100*st.Utilisation)
			b.Width = int(math.Round(min(max(100*st.Utilisation, 0), 100)))
		}
		out = append(out, b)
	}
	return out
}
