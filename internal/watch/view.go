package watch

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/lagscope/lagscope/internal/measure"
	decision "github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/units"
)

// View says how to draw: the terminal's width, the moment, and the
// program's own state (paused, help, a message).
type View struct {
	Width        int
	Now          time.Time
	Paused       bool
	Help         bool
	Message      string
	Window, Step time.Duration
}

var (
	bold     = lipgloss.NewStyle().Bold(true)
	dim      = lipgloss.NewStyle().Faint(true)
	bad      = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("9"))
	good     = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("10"))
	partLook = []lipgloss.Style{
		lipgloss.NewStyle().Foreground(lipgloss.Color("9")),  // not sent
		lipgloss.NewStyle().Foreground(lipgloss.Color("11")), // sent, not flushed
		lipgloss.NewStyle().Foreground(lipgloss.Color("12")), // flushed, not confirmed
	}
)

// helpText is what '?' shows.
const helpText = `keys:  q quit   p pause/resume the display   s save the window's samples   ? this help

The verdict is re-evaluated every step over the last window; positions and
rates are read every second. Saved samples re-classify offline:
  lagscope diagnose --from-samples FILE
The lag bar splits the unconfirmed WAL: not yet sent (red), sent but not
flushed by the subscriber (yellow), flushed but not confirmed (blue).`

// Render draws the whole screen.
func Render(s *State, v View) string {
	w := max(v.Width, 60)
	var b strings.Builder
	b.WriteString(bold.Render("lagscope watch") + "  " + header(s, v) + "\n")
	b.WriteString(strings.Repeat("─", w) + "\n")
	if s.Err != "" {
		b.WriteString(bad.Render("last step failed: ") + quote.Escape(s.Err) + "\n")
	}
	slots := s.Slots()
	var physical []report.PhysicalPath
	if s.Report != nil {
		physical = s.Report.Physical
	}
	if len(slots) == 0 && len(physical) == 0 {
		b.WriteString(dim.Render("waiting for the first samples...") + "\n")
	}
	for _, sl := range slots {
		pathView(&b, s, sl, w)
	}
	for _, p := range physical {
		physicalView(&b, p, w)
	}
	if v.Help {
		b.WriteString("\n" + helpText + "\n")
	}
	if v.Message != "" {
		b.WriteString("\n" + quote.Escape(v.Message) + "\n")
	}
	state := ""
	if v.Paused {
		state = bad.Render("PAUSED") + "  "
	}
	b.WriteString("\n" + state + dim.Render("q quit · p pause · s save samples · ? help") + "\n")
	return b.String()
}

func header(s *State, v View) string {
	parts := []string{"pair " + quote.Escape(s.Pair)}
	if r := s.Report; r != nil && (r.Primary != nil || r.Standby != nil) {
		for _, sv := range []struct {
			role string
			s    *report.Server
		}{{"primary", r.Primary}, {"standby", r.Standby}} {
			if sv.s != nil {
				parts = append(parts, sv.role+" "+quote.Escape(sv.s.Version))
			}
		}
	} else if r != nil {
		parts = append(parts, "publisher "+quote.Escape(r.Publisher.Version))
		if r.Subscriber != nil {
			parts = append(parts, "subscriber "+quote.Escape(r.Subscriber.Version))
		}
	}
	parts = append(parts, fmt.Sprintf("verdict over %s, every %s", v.Window, v.Step))
	if !s.Last.At.IsZero() {
		parts = append(parts, fmt.Sprintf("updated %s ago", v.Now.Sub(s.Last.At).Round(time.Second)))
	}
	return strings.Join(parts, " · ")
}

// pathView draws one slot: verdict, lag bar, rates, evidence, stages. Text
// from the servers (names, a blocker's query in the evidence) is escaped
// (quote.Escape) where it is placed: the screen's own styling is escape
// sequences, so no filter can pass over the whole of it.
func pathView(b *strings.Builder, s *State, slot string, w int) {
	p := s.Path(slot)
	live := s.Paths[slot]
	title := quote.Escape(slot)
	if p != nil && p.Subscription != "" {
		title += " → " + quote.Escape(p.Subscription)
	}
	b.WriteString("\n" + bold.Render(title) + "\n")
	if p != nil {
		look := bad
		if p.Limit == "" && p.Name != decision.Stalled {
			look = good
		}
		fmt.Fprintf(b, "  verdict    %s (%.2f)  %s\n", look.Render(quote.Escape(string(p.Name))), p.Confidence, quote.Escape(p.Headline))
	} else {
		b.WriteString("  verdict    " + dim.Render("after the first step") + "\n")
	}
	if live != nil {
		l := live.Lag
		fmt.Fprintf(b, "  lag        %-8s %s  not sent %s · sent, not flushed %s · flushed, not confirmed %s\n",
			units.FormatBytes(float64(l.Total)), bar(l, 30), units.FormatBytes(float64(l.NotYetSent)),
			units.FormatBytes(float64(l.SentNotFlushed)), units.FormatBytes(float64(l.FlushedNotConfd)))
		for _, r := range []struct {
			name string
			get  func(Rates) float64
		}{{"generated", func(r Rates) float64 { return r.Generated }}, {"decoded", func(r Rates) float64 { return r.Decoded }},
			{"confirmed", func(r Rates) float64 { return r.Confirmed }}} {
			var vals []float64
			for _, h := range live.History {
				vals = append(vals, r.get(h))
			}
			last := 0.0
			if len(vals) > 0 {
				last = vals[len(vals)-1]
			}
			fmt.Fprintf(b, "  %-10s %9s/s %s\n", r.name, units.FormatBytes(last), Sparkline(vals, min(HistoryLen, w-26)))
		}
	}
	if p == nil {
		return
	}
	if p.Cause != "" {
		fmt.Fprintf(b, "  cause      %s\n", quote.Escape(p.Cause))
	}
	for i, e := range p.Evidence {
		if i == 3 {
			break
		}
		lead := "  evidence   "
		if i > 0 {
			lead = "             "
		}
		b.WriteString(lead + "• " + clip(quote.Escape(e.Text), w-15) + "\n")
	}
	if len(p.Stages) > 0 {
		head, rows := report.StageTable(p.Stages)
		b.WriteString("\n")
		table(b, "  ", head, rows)
	}
}

// physicalView draws one physical standby: verdict, lag per stage, rates,
// catch-up forecast, evidence, stages (per step: the live ticks are a
// logical pair's).
func physicalView(b *strings.Builder, p report.PhysicalPath, w int) {
	b.WriteString("\n" + bold.Render("standby "+quote.Escape(p.Standby)+" (physical)") + "\n")
	look := bad
	if p.Limit == "" && p.Name != decision.Stalled {
		look = good
	}
	fmt.Fprintf(b, "  verdict    %s (%.2f)  %s\n", look.Render(quote.Escape(string(p.Name))), p.Confidence, quote.Escape(p.Headline))
	fmt.Fprintf(b, "  lag        %s\n", physicalLag(p))
	fmt.Fprintf(b, "  rates      generated %s · sent %s · received %s · replayed %s\n", units.FormatRate(p.GeneratedMBps*1e6),
		units.FormatRate(p.SentMBps*1e6), units.FormatRate(p.ReceivedMBps*1e6), units.FormatRate(p.ReplayedMBps*1e6))
	fmt.Fprintf(b, "  catch-up   %s\n", catchUp(p))
	if p.Cause != "" {
		fmt.Fprintf(b, "  cause      %s\n", quote.Escape(p.Cause))
	}
	for i, e := range p.Evidence {
		if i == 3 {
			break
		}
		lead := "  evidence   "
		if i > 0 {
			lead = "             "
		}
		b.WriteString(lead + "• " + clip(quote.Escape(e.Text), w-15) + "\n")
	}
	if len(p.Stages) > 0 {
		head, rows := report.StageTable(p.Stages)
		b.WriteString("\n")
		table(b, "  ", head, rows)
	}
}

// bar draws the lag split as n cells.
func bar(l measure.Lag, n int) string {
	if l.Total <= 0 {
		return "[" + strings.Repeat(" ", n) + "]"
	}
	parts := []int64{l.NotYetSent, l.SentNotFlushed, l.FlushedNotConfd}
	var b strings.Builder
	b.WriteString("[")
	used := 0
	for i, v := range parts {
		c := int(math.Round(float64(v) / float64(l.Total) * float64(n)))
		c = min(c, n-used)
		b.WriteString(partLook[i].Render(strings.Repeat("█", c)))
		used += c
	}
	b.WriteString(strings.Repeat(" ", n-used) + "]")
	return b.String()
}

// sparks are the eight heights of a sparkline.
var sparks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws the last n values, scaled to their maximum.
func Sparkline(vals []float64, n int) string {
	if n <= 0 {
		return ""
	}
	if len(vals) > n {
		vals = vals[len(vals)-n:]
	}
	top := 0.0
	for _, v := range vals {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		if top > 0 {
			i = int(math.Round(v / top * float64(len(sparks)-1)))
		}
		b.WriteRune(sparks[i])
	}
	return b.String()
}

func table(b *strings.Builder, indent string, head []string, rows [][]string) {
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = len(h)
	}
	esc := make([][]string, len(rows))
	for i, r := range rows {
		esc[i] = make([]string, len(r))
		for j, c := range r {
			esc[i][j] = quote.Escape(c)
			width[j] = max(width[j], lipgloss.Width(esc[i][j]))
		}
	}
	rows = esc
	line := func(cells []string, st lipgloss.Style) {
		b.WriteString(indent)
		for i, c := range cells {
			if i == 0 {
				b.WriteString(st.Render(c + strings.Repeat(" ", width[i]-lipgloss.Width(c))))
			} else {
				b.WriteString("  " + strings.Repeat(" ", width[i]-lipgloss.Width(c)) + c)
			}
		}
		b.WriteString("\n")
	}
	line(head, dim)
	for _, r := range rows {
		line(r, lipgloss.NewStyle())
	}
}

func clip(s string, n int) string {
	if n < 10 || len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
