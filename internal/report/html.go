package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/units"
)

// htmlPage is the template of the HTML report: one self-contained file,
// styles inline, charts as inline SVG, no scripts, nothing fetched.
//
//go:embed html.tmpl
var htmlPage string

// style is the HTML reports' stylesheet, inlined in each page.
//
//go:embed style.css
var style string

// Style returns the stylesheet every lagscope HTML report inlines (check's
// too), for a <style> element.
func Style() template.CSS { return template.CSS(style) }

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"style": Style,
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
		if p.Limit == "" && p.Name != "stalled" && p.Name != "inconclusive" {
			return "ok"
		}
		return "limit"
	},
	"join": strings.Join,
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

// HTMLPage is HTML with prefaces above the diagnosis.
func HTMLPage(w io.Writer, r Report, prefaces ...Preface) error {
	data := struct {
		Report
		Paths    []htmlPath
		Prefaces []Preface
	}{Report: r, Prefaces: prefaces}
	for _, p := range r.Paths {
		ch, err := Charts(p)
		if err != nil {
			return err
		}
		data.Paths = append(data.Paths, htmlPath{Path: p, Charts: ch})
	}
	return ExecutePage(w, htmlTmpl, data)
}

// ExecutePage runs the template of one of lagscope's HTML pages and writes
// the page through quote.Sanitize: html/template escapes markup but leaves
// control, bidi and format runes as they are, and a name or a query holding
// one would reorder or hide what the page shows. They are written as visible
// escapes. Line feeds and tabs pass (the page's own, and the tabs gonum/plot
// writes inside its SVG): in a value outside <pre> a browser shows them as a
// space; statements, in <pre>, are escaped value by value.
func ExecutePage(w io.Writer, t *template.Template, data any) error {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return err
	}
	_, err := io.WriteString(w, quote.Sanitize(b.String(), "\n\t"))
	return err
}

// CSPMeta is the Content-Security-Policy every lagscope HTML page declares
// in its head, before its style: it loads nothing and runs nothing (no page has a script);
// its one stylesheet is inline, its charts inline SVG.
const CSPMeta = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`

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
		b := pipeBox{Name: st.Name, Role: st.Role, Util: "not measured"}
		if st.Known() {
			b.Util = fmt.Sprintf("%.0f%% busy", 100*st.Utilisation)
			b.Width = int(math.Round(min(max(100*st.Utilisation, 0), 100)))
		}
		out = append(out, b)
	}
	return out
}
