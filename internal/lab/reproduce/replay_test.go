package reproduce

import (
	"math"
	"strings"
	"testing"
)

func TestReplayPlanAlternatesTheSettingsInRounds(t *testing.T) {
	got := replayPlan(2)
	want := []int{10, 100, 200, 300, 10, 100, 200, 300}
	if len(got) != len(want) {
		t.Fatalf("replayPlan(2) = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("replayPlan(2) = %v, want %v", got, want)
		}
	}
}

func TestStandbyFirst(t *testing.T) {
	for _, c := range []struct {
		name     string
		from, to int
		want     bool
	}{
		{"raising max_wal_senders restarts the standby first", 10, 100, true},
		{"lowering max_wal_senders restarts the primary first", 300, 10, false},
		{"an unchanged setting may restart either first", 100, 100, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := standbyFirst(c.from, c.to); got != c.want {
				t.Errorf("standbyFirst(%d, %d) = %v, want %v", c.from, c.to, got, c.want)
			}
		})
	}
}

func TestReplaySectionHasTwoRowsPerSettingAndRatiosAgainstTen(t *testing.T) {
	var runs []replayRun
	for round := 0; round < 3; round++ {
		for _, n := range replaySenders {
			// time grows with senders: 1000, 1100, 1200, 1300 ms (+round)
			runs = append(runs, replayRun{Senders: n, Millis: 1000 + float64(n/100)*100 + float64(round), CPU: float64(n)/100 + 1})
		}
	}
	tab := &Table{Sections: []Section{replaySection(runs, 2_000_000)}}
	s := tab.Sections[0]
	if s.Title != replayTitle || len(s.Rows) != 8 || len(s.Ratios) != 4 {
		t.Fatalf("section %q has %d rows and %d ratios, want %q, 8 and 4", s.Title, len(s.Rows), len(s.Ratios), replayTitle)
	}
	r := tab.Row("max_wal_senders 300: time to replicate")
	if r == nil || r.Median != 1301 || r.Min != 1300 || r.Max != 1302 || r.Unit != "ms" || len(r.Runs) != 3 {
		t.Fatalf("300-sender time row = %+v, want median 1301 ms over 3 runs", r)
	}
	if !strings.Contains(r.Seed, "13535") || !strings.Contains(r.Seed, "16736") {
		t.Errorf("300-sender seed text %q lacks the seed's before/after times", r.Seed)
	}
	if c := tab.Row("max_wal_senders 100: startup process CPU"); c == nil || c.Median != 2 || c.Unit != "s" {
		t.Errorf("100-sender CPU row = %+v, want median 2 s", c)
	}
	if c := tab.Row("max_wal_senders 10: time to replicate"); c == nil || c.Seed != "" {
		t.Errorf("10-sender time row = %+v, want no seed figure (the seed has no 10-sender timing)", c)
	}
	for _, c := range []struct {
		name           string
		seed, measured float64
	}{
		{"max_wal_senders 100 vs 10: time to replicate", 1.056, 1101.0 / 1001},
		{"max_wal_senders 200 vs 10: time to replicate", 1.099, 1201.0 / 1001},
		{"max_wal_senders 300 vs 10: time to replicate", 1.236, 1301.0 / 1001},
		{"max_wal_senders 100 vs 10: startup process CPU", 2.129, 2.0 / 1.1},
	} {
		q := tab.Ratio(c.name)
		if q == nil {
			t.Errorf("ratio %q missing", c.name)
			continue
		}
		if math.Abs(q.Seed-c.seed) > 0.001 || math.Abs(q.Measured-c.measured) > 1e-9 || q.Tolerance != 0 || q.Within() {
			t.Errorf("ratio %q = %+v, want seed %.3f, measured %.4f, not checked", c.name, q, c.seed, c.measured)
		}
		if !strings.Contains(q.Verdict, "not checked") {
			t.Errorf("ratio %q verdict %q, want it shown, not checked", c.name, q.Verdict)
		}
	}
	if notes := strings.Join(s.Notes, " "); !strings.Contains(notes, "e101dfac") || !strings.Contains(notes, "near 1.0") {
		t.Errorf("notes do not explain the regression and what released servers show: %q", notes)
	}
}

func TestReplayRatiosAreNotMeasuredWithoutTheTenSenderBaseline(t *testing.T) {
	s := replaySection([]replayRun{{Senders: 100, Millis: 500, CPU: 0.5}}, 200_000)
	for _, q := range s.Ratios {
		if q.Verdict != "not measured" {
			t.Errorf("ratio %q verdict %q, want not measured", q.Name, q.Verdict)
		}
	}
}

func TestReplayCaveatsNameTheCPUs(t *testing.T) {
	c := strings.Join(replayCaveats(Options{PubCPUs: []int{0}, SubCPUs: []int{1}}, 200_000), " ")
	for _, want := range []string{"CPU(s) 0", "CPU(s) 1", "Durability off", "200000"} {
		if !strings.Contains(c, want) {
			t.Errorf("caveats lack %q: %s", want, c)
		}
	}
}
