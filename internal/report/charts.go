package report

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

// Chart is one inline SVG chart of a path's time series.
type Chart struct {
	Title string
	SVG   string // an <svg> element, no XML prelude
}

// palette colours the series of a chart in order.
var palette = []color.Color{
	color.RGBA{214, 39, 40, 255},   // red
	color.RGBA{255, 127, 14, 255},  // orange
	color.RGBA{31, 119, 180, 255},  // blue
	color.RGBA{44, 160, 44, 255},   // green
	color.RGBA{148, 103, 189, 255}, // purple
	color.RGBA{127, 127, 127, 255}, // grey
}

// Charts draws a path's series: the lag split stacked, the WAL rates, CPU
// and run queue per process, and each process's wait-event shares. A path
// without a series (a schema 1 report) has none.
func Charts(p Path) ([]Chart, error) {
	s := p.Series
	if s == nil || len(s.Points) < 2 {
		return nil, nil
	}
	t0 := s.Points[0].At
	secs := func(p measure.Point) float64 { return p.At.Sub(t0).Seconds() }
	var out []Chart
	add := func(title string, pl *plot.Plot, err error) error {
		if err != nil {
			return fmt.Errorf("chart %q: %w", title, err)
		}
		svg, err := toSVG(pl)
		if err != nil {
			return fmt.Errorf("chart %q: %w", title, err)
		}
		out = append(out, Chart{Title: title, SVG: svg})
		return nil
	}

	// Lag split, stacked, MB.
	xs := make([]float64, len(s.Points))
	layers := make([][]float64, 3)
	for i, pt := range s.Points {
		xs[i] = secs(pt)
		layers[0] = append(layers[0], float64(pt.NotYetSent)/1e6)
		layers[1] = append(layers[1], float64(pt.SentNotFlushed)/1e6)
		layers[2] = append(layers[2], float64(pt.FlushedNotConfd)/1e6)
	}
	pl := newPlot("MB")
	err := stacked(pl, xs, layers, []string{"not yet sent", "sent, not flushed", "flushed, not confirmed"})
	if err := add("Lag by part", pl, err); err != nil {
		return nil, err
	}

	// WAL rates between ticks, MB/s.
	rates := map[string]plotter.XYs{}
	for i := 1; i < len(s.Points); i++ {
		a, b := s.Points[i-1], s.Points[i]
		dt := b.At.Sub(a.At).Seconds()
		if dt <= 0 {
			continue
		}
		x := secs(b)
		rates["generated"] = append(rates["generated"], plotter.XY{X: x, Y: sample.Advance(b.Current, a.Current) / dt / 1e6})
		rates["decoded (sent)"] = append(rates["decoded (sent)"], plotter.XY{X: x, Y: sample.Advance(b.Sent, a.Sent) / dt / 1e6})
		rates["confirmed"] = append(rates["confirmed"], plotter.XY{X: x, Y: sample.Advance(b.Confirmed, a.Confirmed) / dt / 1e6})
	}
	pl = newPlot("MB/s")
	err = lines(pl, rates, []string{"generated", "decoded (sent)", "confirmed"})
	if err := add("WAL rates", pl, err); err != nil {
		return nil, err
	}

	// CPU and run queue per role, % of one core (with /proc).
	cpu := map[string]plotter.XYs{}
	var names []string
	for _, pp := range s.Procs {
		if pp.CPUShare < 0 {
			continue
		}
		x := pp.At.Sub(t0).Seconds()
		for _, k := range []struct {
			name string
			v    float64
		}{{pp.Role + " CPU", pp.CPUShare}, {pp.Role + " run queue", pp.RunqueueShare}} {
			if _, ok := cpu[k.name]; !ok {
				names = append(names, k.name)
			}
			cpu[k.name] = append(cpu[k.name], plotter.XY{X: x, Y: 100 * max(k.v, 0)})
		}
	}
	if len(cpu) > 0 {
		pl = newPlot("% of one core")
		err = lines(pl, cpu, names)
		if err := add("CPU and run queue per process", pl, err); err != nil {
			return nil, err
		}
	}

	// Wait-event shares over time, one chart per role.
	for _, role := range []string{sample.RoleWalsender, sample.RoleApply, sample.RoleParallel} {
		var pts []measure.ProcPoint
		for _, pp := range s.Procs {
			if pp.Role == role && len(pp.WaitShares) > 0 {
				pts = append(pts, pp)
			}
		}
		if len(pts) < 2 {
			continue
		}
		events := topEvents(pts, 4)
		xs := make([]float64, len(pts))
		layers := make([][]float64, len(events)+1)
		for i, pp := range pts {
			xs[i] = pp.At.Sub(t0).Seconds()
			rest := 100.0
			for j, ev := range events {
				v := 100 * pp.WaitShares[ev]
				layers[j] = append(layers[j], v)
				rest -= v
			}
			layers[len(events)] = append(layers[len(events)], max(rest, 0))
		}
		pl = newPlot("% of probes")
		pl.Y.Max = 100
		err = stackedColours(pl, xs, layers, append(events, "other"), eventColours(append(events, "other")))
		if err := add("Wait events: "+role, pl, err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// topEvents are the n events with the largest total share over pts.
func topEvents(pts []measure.ProcPoint, n int) []string {
	total := map[string]float64{}
	for _, pp := range pts {
		for ev, v := range pp.WaitShares {
			total[ev] += v
		}
	}
	var evs []string
	for _, e := range measure.Ranked(total) {
		if len(evs) == n {
			break
		}
		evs = append(evs, e.Event)
	}
	return evs
}

func newPlot(ylabel string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text = "seconds into the window"
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p
}

// lines draws one line per name, in that order.
func lines(p *plot.Plot, series map[string]plotter.XYs, names []string) error {
	for i, n := range names {
		xy := finite(series[n])
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(n, l)
	}
	return nil
}

// stacked draws layers as stacked areas, the first at the bottom: each
// layer's top line is the running sum, filled down to zero, the tallest
// drawn first so the lower ones paint over it.
func stacked(p *plot.Plot, xs []float64, layers [][]float64, names []string) error {
	cs := make([]color.Color, len(names))
	for j := range cs {
		cs[j] = palette[j%len(palette)]
	}
	return stackedColours(p, xs, layers, names, cs)
}

// stackedColours is stacked with a colour per layer.
func stackedColours(p *plot.Plot, xs []float64, layers [][]float64, names []string, cs []color.Color) error {
	tops := make([]plotter.XYs, len(layers))
	sum := make([]float64, len(xs))
	for j, l := range layers {
		tops[j] = make(plotter.XYs, len(xs))
		for i := range xs {
			sum[i] += l[i]
			tops[j][i] = plotter.XY{X: xs[i], Y: sum[i]}
		}
	}
	// A point some layer cannot draw (a figure out of range in a report
	// file) is left out of every layer, so that they stay stacked.
	var keep []int
	for i := range xs {
		ok := true
		for j := range tops {
			ok = ok && len(finite(tops[j][i:i+1])) == 1
		}
		if ok {
			keep = append(keep, i)
		}
	}
	for j := range tops {
		kept := make(plotter.XYs, len(keep))
		for k, i := range keep {
			kept[k] = tops[j][i]
		}
		tops[j] = kept
	}
	for j := len(tops) - 1; j >= 0; j-- {
		l, err := plotter.NewLine(tops[j])
		if err != nil {
			return err
		}
		c := cs[j]
		l.Color, l.FillColor = c, fade(c)
		p.Add(l)
	}
	for j, n := range names {
		l, _ := plotter.NewLine(tops[j])
		l.Color, l.FillColor = cs[j], fade(cs[j])
		p.Legend.Add(n, l)
	}
	return nil
}

// finite is xy without the points that cannot be drawn: an infinite or NaN
// coordinate (a figure out of range in a report read from a file).
func finite(xy plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, 0, len(xy))
	for _, p := range xy {
		if !math.IsInf(p.X, 0) && !math.IsNaN(p.X) && !math.IsInf(p.Y, 0) && !math.IsNaN(p.Y) {
			out = append(out, p)
		}
	}
	return out
}

// fade is c at 60% opacity over white (opaque: print-safe).
func fade(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((6*(v>>8) + 4*255) / 10) }
	return color.RGBA{mix(r), mix(g), mix(b), 255}
}

// toSVG renders p as an inline <svg> element.
func toSVG(p *plot.Plot) (string, error) { return SVG(p, 7*vg.Inch, 3*vg.Inch) }

// LegendWidth is the strip at a chart's right that holds its legend,
// outside the data.
const LegendWidth = 2.3 * vg.Inch

// SVG renders p, w by h, as an inline <svg> element (no XML prelude): the
// charts of every lagscope HTML page. The legend goes in a strip of
// LegendWidth at the right, outside the data, so it never hides a line.
func SVG(p *plot.Plot, w, h vg.Length) (string, error) {
	c := vgsvg.New(w, h)
	dc := drawCanvas(c)
	legend := p.Legend
	p.Legend = plot.NewLegend()
	p.Draw(draw.Crop(dc, 0, -LegendWidth, 0, 0))
	p.Legend = legend
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(10)
	legend.Draw(draw.Crop(dc, w-LegendWidth+6, 0, 0, -6))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s, nil
}

func drawCanvas(c *vgsvg.Canvas) draw.Canvas { return draw.New(c) }

// eventPalette colours wait events: each event keeps its colour in every
// chart of every report (the same event, the same colour), "CPU" and
// "other" theirs.
var eventPalette = []color.Color{
	color.RGBA{31, 119, 180, 255},  // blue
	color.RGBA{214, 39, 40, 255},   // red
	color.RGBA{148, 103, 189, 255}, // purple
	color.RGBA{140, 86, 75, 255},   // brown
	color.RGBA{227, 119, 194, 255}, // pink
	color.RGBA{188, 189, 34, 255},  // olive
	color.RGBA{23, 190, 207, 255},  // cyan
	color.RGBA{255, 127, 14, 255},  // orange
}

// eventColours gives each event its colour: CPU green, other grey, the
// rest by a hash of the name (the next free one when two events of one
// chart hash alike).
func eventColours(events []string) []color.Color {
	out := make([]color.Color, len(events))
	used := map[int]bool{}
	for i, ev := range events {
		switch strings.ToLower(ev) {
		case "cpu":
			out[i] = color.RGBA{44, 160, 44, 255}
			continue
		case "other":
			out[i] = color.RGBA{170, 170, 170, 255}
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(strings.ToLower(ev)))
		k := int(h.Sum32() % uint32(len(eventPalette)))
		for n := 0; used[k] && n < len(eventPalette); n++ {
			k = (k + 1) % len(eventPalette)
		}
		used[k] = true
		out[i] = eventPalette[k]
	}
	return out
}
