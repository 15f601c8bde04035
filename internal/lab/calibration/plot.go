package calibration

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// sideStyle is how each side's points are drawn.
var sideStyle = map[string]struct {
	shape draw.GlyphDrawer
	color color.Color
}{
	"publisher":  {draw.CircleGlyph{}, color.RGBA{R: 31, G: 119, B: 180, A: 255}},
	"subscriber": {draw.TriangleGlyph{}, color.RGBA{R: 214, G: 39, B: 40, A: 255}},
}

// PlotSVG draws the points as two scatter plots side by side, x the /proc
// run-queue share of the walsender (publisher) or apply worker (subscriber):
// the burst's stretch, with the curve 1/(1-x) a process that wants a CPU all
// the time would follow, and the wake-up lateness's p90.
func PlotSVG(w io.Writer, ps []Point) error {
	stretch, err := scatter(ps, "burst stretch (x its bare time)", func(p Point) float64 { return p.Stretch })
	if err != nil {
		return err
	}
	curve := plotter.NewFunction(func(x float64) float64 { return 1 / (1 - x) })
	curve.XMin, curve.XMax = 0, 0.9
	curve.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	stretch.Add(curve)
	stretch.Legend.Add("1/(1 - run queue)", curve)
	late, err := scatter(ps, "wake-up lateness p90 (ms)", func(p Point) float64 { return p.LateP90MS })
	if err != nil {
		return err
	}
	const width, height = 10 * vg.Inch, 4 * vg.Inch
	c := vgsvg.New(width, height)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Inch / 4}
	dc := draw.New(c)
	for i, p := range []*plot.Plot{stretch, late} {
		p.Draw(tiles.At(dc, i, 0))
	}
	_, err = c.WriteTo(w)
	return err
}

// scatter plots f against the run-queue share, a series per side.
func scatter(ps []Point, ylabel string, f func(Point) float64) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = "/proc run-queue share of the replication process"
	p.Y.Label.Text = ylabel
	p.X.Min, p.Y.Min = 0, 0
	p.Legend.Top, p.Legend.Left = true, true
	for _, side := range []string{"publisher", "subscriber"} {
		var xy plotter.XYs
		for _, pt := range ps {
			if y := f(pt); pt.Side == side && y >= 0 {
				xy = append(xy, plotter.XY{X: pt.Runq, Y: y})
			}
		}
		if len(xy) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", side, err)
		}
		st := sideStyle[side]
		s.GlyphStyle.Shape, s.GlyphStyle.Color, s.GlyphStyle.Radius = st.shape, st.color, vg.Points(3)
		p.Add(s)
		role := "walsender"
		if side == "subscriber" {
			role = "apply worker"
		}
		p.Legend.Add(fmt.Sprintf("%s (%s)", side, role), s)
	}
	return p, nil
}
