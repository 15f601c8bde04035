package timeline

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/sample"
)

// piece is one recorded real lab run (internal/classify/testdata) laid
// into a recording.
type piece struct {
	file string
	want model.VerdictName
}

// stitched are 10-s lab runs of one pair (slot lab_sub on 16.14), one
// after the other: caught up, an apply-bound backlog, caught up, a slow
// link, a starved walsender, a lock held on the subscriber.
var stitched = []piece{
	{"caught-up-pg16-diag", model.CaughtUp},
	{"apply-bound-pg16-diag", model.SubscriberApplyCPU},
	{"caught-up-pg16-diag", model.CaughtUp},
	{"network-pg16-diag", model.Network},
	{"walsender-starved-pg16-diag", model.WalsenderStarved},
	{"subscriber-lock-pg16-diag", model.SubscriberWaits},
}

// stamps are the times in a recording's JSON.
var stamps = regexp.MustCompile(`"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d))"`)

// shifted is the recording in file, its every time moved so that it
// starts at t0, its first 10 s; with a name, its subscription is
// renamed name, and so is the table a blocker locks. (A slot's name is
// checked when read: lower-case letters, digits and underscores.)
func shifted(t *testing.T, file string, t0 time.Time, name string) *sample.Recording {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "classify", "testdata", file+".json"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sample.ReadRecording(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	d := t0.Sub(rec.Start)
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	b = stamps.ReplaceAllFunc(b, func(m []byte) []byte {
		at, err := time.Parse(time.RFC3339Nano, string(m[1:len(m)-1]))
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		return []byte(`"` + at.Add(d).UTC().Format(time.RFC3339Nano) + `"`)
	})
	// The table a blocker locks (in its query) is named name too.
	if name != "" {
		q, _ := json.Marshal(`LOCK TABLE "` + strings.ReplaceAll(name, `"`, `""`) + `" IN SHARE MODE`)
		b = bytes.ReplaceAll(b, []byte(`"LOCK TABLE hot IN SHARE MODE"`), q)
	}
	var out sample.Recording
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for i := range out.Ticks {
		for j := range out.Ticks[i].Reads {
			for k := range out.Ticks[i].Reads[j].Subs {
				if name != "" {
					out.Ticks[i].Reads[j].Subs[k].Name = name
				}
			}
		}
	}
	out.End = t0.Add(10 * time.Second)
	var ticks []sample.Tick
	for _, tk := range out.Ticks {
		if tk.At.Before(out.End) {
			ticks = append(ticks, tk)
		}
	}
	var probes []sample.Probe
	for _, p := range out.Probes {
		if p.At.Before(out.End) {
			probes = append(probes, p)
		}
	}
	out.Ticks, out.Probes = ticks, probes
	return &out
}

// record writes the pieces one after the other into a recording made by
// the recorder, the subscription and the locked table named name (""
// leaves them), and returns its directory and start.
func record(t *testing.T, name string, pieces []piece) (string, time.Time) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rec")
	w, err := recorder.Open(recorder.Options{Dir: dir, RetainAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	for i, p := range pieces {
		rec := shifted(t, p.file, t0.Add(time.Duration(i)*10*time.Second), name)
		if err := w.Step(rec, rec.Setup, rec.SetupError); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, t0
}

// The HTML timeline of a recording made by the recorder from six lab runs
// in a row: an incident per lab state that is a finding, each named by its
// lab state's verdict, each a row linking to its report in the page; the
// chart draws the lag and a band of the limiting stages.
func TestTheHTMLTimelineShowsEachIncidentWithItsReportAndTheStageBand(t *testing.T) {
	dir, t0 := record(t, "", stitched)
	tl, err := Read(dir, t0, t0.Add(time.Duration(len(stitched))*10*time.Second), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var want []piece
	for _, p := range stitched {
		if model.SpecOf(p.want).Finding {
			want = append(want, p)
		}
	}
	if len(tl.Incidents) != len(want) {
		t.Fatalf("%d incidents, want %d (%v): %+v", len(tl.Incidents), len(want), want, tl.Incidents)
	}
	for i, in := range tl.Incidents {
		if in.Verdict != want[i].want {
			t.Errorf("incident %d: %s, want %s (%s)", i+1, in.Verdict, want[i].want, want[i].file)
		}
	}
	var b bytes.Buffer
	if err := HTML(&b, tl, time.UTC); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for i, in := range tl.Incidents {
		n := strconv.Itoa(i + 1)
		for _, s := range []string{`<a href="#incident-` + n + `">`, `<section class="incident" id="incident-` + n + `">`, `<a href="#row-` + n + `">`} {
			if !strings.Contains(page, s) {
				t.Errorf("incident %d: the page has no %s", i+1, s)
			}
		}
		// Its report is in the page: its verdict's box, with its charts.
		sec := page[strings.Index(page, `id="incident-`+n+`"`):]
		if end := strings.Index(sec[1:], `<section class="incident"`); end > 0 {
			sec = sec[:end]
		}
		if !strings.Contains(sec, `<div class="name">`+string(in.Verdict)+` `) || strings.Count(sec, "<svg") < 2 {
			t.Errorf("incident %d (%s): its section holds no report of that verdict with charts:\n%.600s", i+1, in.Verdict, sec)
		}
	}
	// The band: a stage the limit of an incident is in the legend, and
	// caught up.
	for _, in := range tl.Incidents {
		if in.Limit != "" && !strings.Contains(page, "limit: "+string(in.Limit)) {
			t.Errorf("the band's legend has no limit: %s", in.Limit)
		}
	}
	if !strings.Contains(page, "caught up") {
		t.Errorf("the band's legend has no caught up")
	}
	for _, s := range []string{"<script", `href="http`, "src="} {
		if strings.Contains(page, s) {
			t.Errorf("the page holds %q: it must load nothing and run nothing", s)
		}
	}
}

// A hostile subscription and table name in a recording (markup, a quote,
// a screen clear, a right-to-left override) is shown escaped everywhere on
// the page: the incident's cause, its report's heading and evidence.
func TestTheHTMLTimelineEscapesAHostileName(t *testing.T) {
	const hostile = `<script>alert(1)</script><img src=x onerror=alert(2)>'"` + "\x1b[2J\u202e"
	dir, t0 := record(t, hostile, []piece{stitched[0], stitched[5]})
	tl, err := Read(dir, t0, t0.Add(20*time.Second), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Incidents) != 1 || tl.Incidents[0].Verdict != model.SubscriberWaits {
		t.Fatalf("incidents %+v: want one subscriber-waits", tl.Incidents)
	}
	var b bytes.Buffer
	if err := HTML(&b, tl, time.UTC); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<img", "\x1b", "\u202e"} {
		if strings.Contains(page, bad) {
			i := strings.Index(page, bad)
			t.Errorf("the page holds %q unescaped: %q", bad, page[max(0, i-80):min(len(page), i+80)])
		}
	}
	if strings.Contains(page, "No report:") {
		t.Fatalf("the incident has no report: %s", page[strings.Index(page, "No report:"):])
	}
	// In the report's heading (the subscription) and its evidence (the
	// blocker's query): each escape at least twice.
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\x1b[2J`, `\u202e`} {
		if n := strings.Count(page, want); n < 2 {
			t.Errorf("the page shows the name escaped as %q %d times, want 2+", want, n)
		}
	}
}
