package trouble

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
)

// The stalled recording's slot (its subscription disabled, so inactive)
// under PostgreSQL 18's idle_replication_slot_timeout: the forecast is
// inactive_since + the timeout, from the window's last read.
func TestAnInactiveSlotsIdleTimeoutRunsOutAtInactiveSincePlusTheTimeout(t *testing.T) {
	rec := load(t, "stalled-pg16-diag")
	rec.Version = 8
	since := rec.Ticks[0].At.Add(-10 * time.Second)
	for _, c := range []struct {
		name    string
		timeout float64
		active  bool
		want    float64 // -1: no forecast
		text    string
	}{
		{"a slot inactive 10 s before the window, under a 60 s timeout", 60, false, -2, "runs out in about"},
		{"a slot inactive longer than the timeout", 5, false, 0, "next checkpoint invalidates"},
		{"the timeout off", 0, false, -1, ""},
		{"an active slot", 60, true, -1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			for i := range rec.Ticks {
				for j := range rec.Ticks[i].Read(sample.PublisherNode).Slots {
					sl := &rec.Ticks[i].Read(sample.PublisherNode).Slots[j]
					sl.Active, sl.IdleTimeoutS, sl.InactiveSince = c.active, &c.timeout, nil
					if !c.active {
						sl.InactiveSince = &since
					}
				}
			}
			s := Of(rec, "lab_sub")
			want := c.want
			if want == -2 {
				want = since.Add(60 * time.Second).Sub(s.At).Seconds()
			}
			if math.Abs(s.IdleInS-want) > 0.001 || s.IdleTimeoutS != c.timeout {
				t.Errorf("idle in %.1f s (timeout %.0f s), want %.1f s", s.IdleInS, s.IdleTimeoutS, want)
			}
			if has := strings.Contains(s.Text, "idle_replication_slot_timeout"); has != (c.text != "") || !strings.Contains(s.Text, c.text) {
				t.Errorf("text %q, want it to say %q", s.Text, c.text)
			}
			b, _ := json.Marshal(s)
			var back Slot
			if err := json.Unmarshal(b, &back); err != nil || back.IdleInS != s.IdleInS || back.IdleTimeoutS != s.IdleTimeoutS {
				t.Errorf("JSON %s read back as %+v (%v)", b, back, err)
			}
			if want < 0 && !strings.Contains(string(b), `"idle_timeout_in_s":null`) {
				t.Errorf("JSON %s: want idle_timeout_in_s null", b)
			}
		})
	}
	// Before 18 (nothing read): unknown, not off.
	for i := range rec.Ticks {
		for j := range rec.Ticks[i].Read(sample.PublisherNode).Slots {
			rec.Ticks[i].Read(sample.PublisherNode).Slots[j].IdleTimeoutS = nil
		}
	}
	if s := Of(rec, "lab_sub"); s.IdleTimeoutS != -1 || s.IdleInS != -1 {
		t.Errorf("no timeout read: %.0f, %.0f; want -1, -1", s.IdleTimeoutS, s.IdleInS)
	}
}

func TestAForecastBeyondADayCarriesItsDate(t *testing.T) {
	at := time.Date(2026, 12, 3, 14, 24, 39, 0, time.UTC)
	for _, c := range []struct {
		in   float64
		want string
	}{
		{53, "14:25:32 UTC"},
		{405.8 * 3600, "2026-12-20 12:12 UTC"},
		{10 * 3600, "2026-12-04 00:24 UTC"}, // past midnight
		{-3600, "13:24:39 UTC"},
	} {
		if got := clock(at, c.in); got != c.want {
			t.Errorf("%.0f s after %s: %q, want %q", c.in, at, got, c.want)
		}
	}
}
