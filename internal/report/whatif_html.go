package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/render"
	"github.com/lagscope/lagscope/internal/units"
)

// whatifPage is the template of 'lagscope lab whatif --html': one
// self-contained page, the runs' drains as bars and as a table.
//
//go:embed whatif.tmpl
var whatifPage string

var whatifTmpl = template.Must(template.New("whatif").Funcs(template.FuncMap{
	"style": render.Style,
	"rate":  units.FormatRate,
	"secs":  units.FormatSeconds,
	"inc":   func(i int) int { return i + 1 },
	"ratio": func(r float64) string { return fmt.Sprintf("%.2f", r) },
	"svg":   func(s string) template.HTML { return template.HTML(s) }, // drawn by gonum/plot, which escapes its labels' markup (the page is sanitized as a whole)
}).Parse(whatifPage))

// WhatifHTML writes the runs of one change (lab whatif) as a page: today's,
// the predicted and the measured drain of each run as bars, the table of
// runs with their stages, the spread of measured / predicted, the model.
func WhatifHTML(w io.Writer, cs model.Checks, command string) error {
	data := struct {
		model.Checks
		Command, Chart string
	}{Checks: cs, Command: command}
	if len(cs.Runs) > 0 {
		svg, err := drainBars(cs.Runs)
		if err != nil {
			return err
		}
		data.Chart = svg
	}
	return render.ExecutePage(w, whatifTmpl, data)
}

// drainBars draws each run's drain today, predicted and measured, MB/s.
func drainBars(runs []model.Check) (string, error) {
	p := plot.New()
	p.Y.Label.Text = "drain (MB/s)"
	p.Y.Min = 0
	p.Legend.Top = true
	sets := []struct {
		name string
		c    color.Color
		v    func(model.Check) float64
	}{
		{"today", color.RGBA{160, 160, 160, 255}, func(c model.Check) float64 { return c.Today }},
		{"predicted", color.RGBA{255, 127, 14, 255}, func(c model.Check) float64 { return c.Predicted }},
		{"measured", color.RGBA{31, 119, 180, 255}, func(c model.Check) float64 { return c.Measured }},
	}
	bw := vg.Points(12)
	var names []string
	for i := range runs {
		names = append(names, fmt.Sprintf("run %d", i+1))
	}
	for i, s := range sets {
		var vals plotter.Values
		for _, r := range runs {
			vals = append(vals, s.v(r)/1e6)
		}
		b, err := plotter.NewBarChart(vals, bw)
		if err != nil {
			return "", err
		}
		b.Color, b.Offset = s.c, vg.Length(i-1)*bw
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.NominalX(names...)
	return SVG(p, vg.Length(1.1*float64(len(runs))+2.5)*vg.Inch, 2.8*vg.Inch)
}
