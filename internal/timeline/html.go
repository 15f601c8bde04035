package timeline

import (
	_ "embed"
	"errors"
	"fmt"
	"hash/fnv"
	"html/template"
	"image/color"
	"io"
	"math"
	"time"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lagscope/lagscope/internal/buildinfo"
	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/render"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/units"
)

// MaxReports is how many incidents' reports one HTML page holds in full
// (the first ones); the rest list the command that gives theirs. Each
// report holds its own charts: a day of flapping would make a page too
// large to open.
const MaxReports = 40

// htmlPage is the timeline's page: one self-contained file, styles
// inline, the chart inline SVG (gonum/plot, as the diagnose report's),
// no scripts, nothing fetched.
//
//go:embed html.tmpl
var htmlPage string

var htmlTmpl = template.Must(template.New("timeline").Funcs(template.FuncMap{
	"style": render.Style,
	"csp":   func() template.HTML { return template.HTML(render.CSPMeta) },
	"svg":   func(s string) template.HTML { return template.HTML(s) }, // drawn by gonum/plot, which escapes its labels' markup (the page is sanitized as a whole)
}).Parse(htmlPage))

// htmlIncident is one incident as the page shows it.
type htmlIncident struct {
	Incident
	N                                  int
	Span, Length, Peak, Conf, HowEnded string
	// Command is the diagnose command line that gives the incident's
	// report, each argument a shell word (quote.Command).
	Command string
	// Report is the incident's report (report.HTMLFragment); NoReport
	// says why there is none.
	Report   template.HTML
	NoReport string
}

// HTML writes the timeline as one self-contained page: the lag over the
// span with the limiting stage as a coloured band under it, the incidents
// as a table, and each incident's report ('lagscope diagnose
// --from-recording DIR --between START,END --slot SLOT', read again from
// tl.Dir) in the same page, anchored incident-N, the first MaxReports of
// them. Times are shown in loc.
func HTML(w io.Writer, tl Timeline, loc *time.Location) error {
	clock := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04:05") }
	chart, err := chartSVG(tl, loc)
	if err != nil {
		return fmt.Errorf("timeline chart: %w", err)
	}
	data := struct {
		Timeline
		Title, Span, Width, Zone, Version string
		Chart                             string
		Rows                              []htmlIncident
		MaxReports                        int
	}{Timeline: tl, Span: clock(tl.From) + " to " + clock(tl.To), Width: units.FormatSeconds(tl.WindowS),
		Zone: loc.String(), Version: buildinfo.Version(), Chart: chart, MaxReports: MaxReports}
	for i, in := range tl.Incidents {
		h := htmlIncident{Incident: in, N: i + 1, Span: clock(in.Start) + " - " + in.End.In(loc).Format("15:04:05"),
			Length: units.FormatSeconds(in.End.Sub(in.Start).Seconds()), Peak: units.FormatBytes(float64(in.PeakLagBytes)),
			Conf: fmt.Sprintf("%.2f", in.Confidence), HowEnded: howEnded(in),
			Command: quote.Command("lagscope", "diagnose", "--from-recording", tl.Dir, "--between",
				in.Start.UTC().Format(time.RFC3339Nano)+","+in.End.UTC().Format(time.RFC3339Nano), "--slot", in.Slot, "--format", "html").Text}
		if i < MaxReports {
			h.Report, err = incidentReport(tl.Dir, in)
			if err != nil {
				h.NoReport = "No report: " + err.Error()
			}
		} else {
			h.NoReport = fmt.Sprintf("The page holds the first %d incidents' reports: the command above gives this one's.", MaxReports)
		}
		data.Rows = append(data.Rows, h)
	}
	return render.ExecutePage(w, htmlTmpl, data)
}

// howEnded says how an incident ended, in words.
func howEnded(in Incident) string {
	switch in.Ended {
	case EndedCaughtUp:
		return "caught up"
	case EndedChanged:
		return "became " + in.Then
	case EndedGap:
		return "then not sampled: " + in.Then
	case EndedOngoing:
		return "still on at the end"
	case EndedNoVerdict:
		return "then " + in.Then
	}
	return in.Ended
}

// incidentReport is the report of diagnose --from-recording over the
// incident's window, for its slot, as a fragment of the page.
func incidentReport(dir string, in Incident) (template.HTML, error) {
	rec, err := recorder.Read(dir, in.Start, in.End)
	if err != nil {
		return "", err
	}
	rep, err := diagnose.FromRecording(rec, in.Slot, "", false, model.LinkRates{})
	if err != nil {
		return "", err
	}
	if len(rep.Paths) == 0 {
		return "", errors.New("the window's report holds no path")
	}
	rep.RebuiltFrom = &render.Source{File: dir, RecordedAt: rep.Start}
	return report.HTMLFragment(rep)
}

// A band is what the strip under the lag shows for a window: its limiting
// stage, or caught up, no stage, not sampled.
type band struct {
	label  string
	colour color.Color
}

// stageColours colour the limiting stages: the same stage, the same colour
// on every page.
var stageColours = map[model.StageName]color.RGBA{
	model.StageWalsender: {255, 127, 14, 255},  // orange
	model.StageLink:      {148, 103, 189, 255}, // purple
	model.StageApply:     {214, 39, 40, 255},   // red
	model.StageParallel:  {227, 119, 194, 255}, // pink
	model.StageReceiver:  {140, 86, 75, 255},   // brown
	model.StageReplay:    {31, 119, 180, 255},  // blue
}

// otherStages colour a stage stageColours does not name, by a hash of it.
var otherStages = []color.RGBA{{188, 189, 34, 255}, {23, 190, 207, 255}, {0, 0, 128, 255}, {128, 128, 0, 255}}

var (
	bandCaughtUp   = band{"caught up", color.RGBA{199, 233, 192, 255}}
	bandNoStage    = band{"no stage limits (stalled, inconclusive, ...)", color.RGBA{127, 127, 127, 255}}
	bandNotSampled = band{"not sampled", color.RGBA{230, 230, 230, 255}}
)

// bandOf is a window's band.
func bandOf(w Window) band {
	switch {
	case w.Gap != "":
		return bandNotSampled
	case w.Limit != "":
		c, ok := stageColours[w.Limit]
		if !ok {
			h := fnv.New32a()
			h.Write([]byte(w.Limit))
			c = otherStages[h.Sum32()%uint32(len(otherStages))]
		}
		return band{"limit: " + string(w.Limit), c}
	case w.Verdict == model.CaughtUp:
		return bandCaughtUp
	}
	return bandNoStage
}

// lagLines colour each path's lag line.
var lagLines = []color.Color{color.RGBA{34, 34, 34, 255}, color.RGBA{31, 119, 180, 255}, color.RGBA{44, 160, 44, 255}, color.RGBA{140, 86, 75, 255}}

// chartSVG draws the lag of each path at each window's end over the span,
// and under the zero line one strip per path coloured by each window's
// band: one chart, so that the strip lines up with the lag above it.
func chartSVG(tl Timeline, loc *time.Location) (string, error) {
	var slots []string
	bySlot := map[string][]Window{}
	peak := 0.0
	for _, w := range tl.Series {
		if _, ok := bySlot[w.Slot]; !ok {
			slots = append(slots, w.Slot)
		}
		bySlot[w.Slot] = append(bySlot[w.Slot], w)
		peak = max(peak, float64(w.LagBytes))
	}
	unit, name := 1e6, "MB"
	switch {
	case peak >= 1e9:
		unit, name = 1e9, "GB"
	case peak < 1e6:
		unit, name = 1e3, "kB"
	}
	top := max(peak/unit, 1)
	strip := top / 7
	p := plot.New()
	p.X.Label.Text = "time (" + loc.String() + ")"
	p.Y.Label.Text = "lag (" + name + ")"
	p.X.Min, p.X.Max = unix(tl.From), unix(tl.To)
	p.Y.Max = top * 1.05
	p.Y.Min = -strip * float64(len(slots))
	p.X.Tick.Marker = clockTicks{loc}
	p.Y.Tick.Marker = lagTicks{strip: strip, slots: slots}
	p.Add(plotter.NewGrid())

	// The bands: one polygon per band, a ring per run of windows.
	type run struct{ from, to time.Time }
	rings := map[band][]plotter.XYs{}
	var order []band
	for k, s := range slots {
		y0, y1 := -strip*float64(k+1), -strip*float64(k)-strip*0.15
		var cur *run
		var curBand band
		flush := func() {
			if cur == nil {
				return
			}
			if _, ok := rings[curBand]; !ok {
				order = append(order, curBand)
			}
			x0, x1 := unix(cur.from), unix(cur.to)
			rings[curBand] = append(rings[curBand], plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			cur = nil
		}
		for _, w := range bySlot[s] {
			b := bandOf(w)
			if cur != nil && (b != curBand || !w.From.Equal(cur.to)) {
				flush()
			}
			if cur == nil {
				cur, curBand = &run{from: w.From}, b
			}
			cur.to = w.To
		}
		flush()
	}
	for _, b := range order {
		xys := make([]plotter.XYer, len(rings[b]))
		for i, r := range rings[b] {
			xys[i] = r
		}
		pg, err := plotter.NewPolygon(xys...)
		if err != nil {
			return "", err
		}
		pg.Color = b.colour
		pg.LineStyle.Width = 0
		p.Add(pg)
		p.Legend.Add(b.label, pg)
	}

	// The lag: a line per path, broken where a window was not sampled.
	for k, s := range slots {
		c := lagLines[k%len(lagLines)]
		var seg plotter.XYs
		var first *plotter.Line
		draw := func() error {
			if len(seg) == 0 {
				return nil
			}
			l, err := plotter.NewLine(seg)
			if err != nil {
				return err
			}
			l.Color, l.Width = c, vg.Points(1.5)
			p.Add(l)
			if len(seg) == 1 {
				sc, err := plotter.NewScatter(seg)
				if err != nil {
					return err
				}
				sc.Color = c
				p.Add(sc)
			}
			if first == nil {
				first = l
			}
			seg = nil
			return nil
		}
		for _, w := range bySlot[s] {
			if w.Gap != "" {
				if err := draw(); err != nil {
					return "", err
				}
				continue
			}
			seg = append(seg, plotter.XY{X: unix(w.To), Y: float64(w.LagBytes) / unit})
		}
		if err := draw(); err != nil {
			return "", err
		}
		if first != nil {
			label := "lag"
			if len(slots) > 1 {
				label = "lag of " + short(s)
			}
			p.Legend.Add(label, first)
		}
	}
	return report.SVG(p, 10*vg.Inch, 3*vg.Inch+vg.Length(len(slots))*0.3*vg.Inch)
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// short is a slot's name cut to 24 runes for an axis or a legend.
func short(s string) string {
	if utf8.RuneCountInString(s) <= 24 {
		return s
	}
	return string([]rune(s)[:23]) + "…"
}

// lagTicks marks the lag above zero, and each path's strip below it with
// its slot (or "limit" when there is one path).
type lagTicks struct {
	strip float64
	slots []string
}

func (t lagTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, tk := range (plot.DefaultTicks{}).Ticks(0, hi) {
		if tk.Value >= 0 && tk.Value <= hi {
			out = append(out, tk)
		}
	}
	for k, s := range t.slots {
		label := "limit"
		if len(t.slots) > 1 {
			label = short(s)
		}
		out = append(out, plot.Tick{Value: -t.strip * (float64(k) + 0.575), Label: label})
	}
	return out
}

// clockTicks marks the time axis at round times of the clock in loc: 6
// to 12 labelled marks whatever the span.
type clockTicks struct{ loc *time.Location }

var clockSteps = []time.Duration{10 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
	15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour}

func (c clockTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	span := time.Duration((hi - lo) * 1e9)
	step := clockSteps[len(clockSteps)-1]
	for _, s := range clockSteps {
		if span/s <= 10 {
			step = s
			break
		}
	}
	format := "15:04"
	if step < time.Minute {
		format = "15:04:05"
	}
	if span > 24*time.Hour {
		format = "Jan 2 15:04"
	}
	t0 := time.Unix(0, int64(lo*1e9)).In(c.loc)
	_, off := t0.Zone()
	shift := time.Duration(off) * time.Second
	first := t0.Add(shift).Truncate(step).Add(-shift)
	var out []plot.Tick
	for t := first; unix(t) <= hi; t = t.Add(step) {
		if unix(t) >= lo {
			out = append(out, plot.Tick{Value: unix(t), Label: t.In(c.loc).Format(format)})
		}
	}
	return out
}
