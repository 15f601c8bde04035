package reproduce

import (
	_ "embed"
	"fmt"
	"html/template"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lagscope/lagscope/internal/render"
	"github.com/lagscope/lagscope/internal/report"
)

//go:embed html.tmpl
var htmlPage string

var htmlTmpl = template.Must(template.New("reproduce").Funcs(template.FuncMap{
	"style":  render.Style,
	"num":    num,
	"spread": spread,
	"dash":   dash,
	"svg":    func(s string) template.HTML { return template.HTML(s) }, // drawn by gonum/plot from numbers only
	"quick":  quickNote,
	"inc":    func(i int) int { return i + 1 },
}).Parse(htmlPage))

// htmlSection is one section with its ratios drawn.
type htmlSection struct {
	Section
	Chart string
}

// HTML writes the table as one self-contained page: each section's rows,
// and its ratios as bars, the seed's beside this machine's.
func HTML(w io.Writer, t *Table) error {
	data := struct {
		*Table
		Secs []htmlSection
	}{Table: t}
	for _, s := range t.Sections {
		hs := htmlSection{Section: s}
		if len(s.Ratios) > 0 {
			svg, err := ratioBars(s.Ratios)
			if err != nil {
				return fmt.Errorf("section %q: %w", s.Title, err)
			}
			hs.Chart = svg
		}
		data.Secs = append(data.Secs, hs)
	}
	return render.ExecutePage(w, htmlTmpl, data)
}

// ratioBars draws each ratio as two bars: the seed's and this machine's.
func ratioBars(rs []Ratio) (string, error) {
	p := plot.New()
	p.Y.Label.Text = "ratio (x)"
	p.Y.Min = 0
	p.Legend.Top = true
	var seed, here plotter.Values
	var names []string
	for _, r := range rs {
		seed = append(seed, r.Seed)
		here = append(here, r.Measured)
		names = append(names, fmt.Sprintf("%d", len(names)+1))
	}
	w := vg.Points(14)
	bs, err := plotter.NewBarChart(seed, w)
	if err != nil {
		return "", err
	}
	bs.Color, bs.Offset = color.RGBA{127, 127, 127, 255}, -w/2
	bh, err := plotter.NewBarChart(here, w)
	if err != nil {
		return "", err
	}
	bh.Color, bh.Offset = color.RGBA{31, 119, 180, 255}, w/2
	p.Add(bs, bh)
	p.Legend.Add("seed", bs)
	p.Legend.Add("this machine", bh)
	p.NominalX(names...)
	return report.SVG(p, vg.Length(1.2*float64(len(rs))+2)*vg.Inch, 2.6*vg.Inch)
}
