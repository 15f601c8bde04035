package sample

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// TestIntegrationWaitBatchSeesEachInstant checks that one batch statement
// reads the backends anew at every instant (a transaction otherwise keeps
// its first copy of their status): a session that is idle, then sleeps in
// pg_sleep, then is idle again must show all three states, at instants
// spaced as asked.
func TestIntegrationWaitBatchSeesEachInstant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := labtest.Server(ctx, t)
	other, err := pgx.Connect(ctx, c.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	var pid int32
	if err := other.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	obs, err := pg.Connect(ctx, c.ConnString("postgres"), "publisher")
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()

	slept := make(chan error, 1)
	go func() {
		time.Sleep(400 * time.Millisecond)
		_, err := other.Exec(ctx, "SELECT pg_sleep(0.4)")
		slept <- err
	}()
	const n, interval = 24, 50 * time.Millisecond
	start := time.Now()
	// A pid that does not exist adds no rows but must not drop instants.
	probes, err := readWaitBatch(ctx, obs, Publisher, []int32{pid, 1 << 30}, n, interval)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-slept; err != nil {
		t.Fatal(err)
	}
	if len(probes) != n {
		t.Fatalf("%d probes, want %d", len(probes), n)
	}
	var states []string
	for i, p := range probes {
		if len(p.Waits) != 1 || p.Waits[0].PID != int(pid) {
			t.Fatalf("probe %d: %+v, want one row for pid %d", i, p.Waits, pid)
		}
		w := p.Waits[0]
		s := w.State
		if w.Event != "" {
			s += "/" + w.Event
		}
		if len(states) == 0 || states[len(states)-1] != s {
			states = append(states, s)
		}
		if i > 0 && !p.At.After(probes[i-1].At) {
			var offs []string
			for _, q := range probes {
				offs = append(offs, q.At.Sub(start).String()+"/"+q.Waits[0].State)
			}
			t.Errorf("probe %d at %v, not after probe %d: %v", i, p.At, i-1, offs)
		}
	}
	span := probes[n-1].At.Sub(probes[0].At)
	t.Logf("%d probes over %v (statement %v): %v", n, span, took, states)
	want := time.Duration(n-1) * interval
	if span < want || span > want+want/2 {
		t.Errorf("probes span %v, want about %v", span, want)
	}
	idle := "idle/ClientRead"
	phases, sawSleep := activePhases(states)
	if len(phases) != 3 || phases[0] != idle || phases[1] != "active" || phases[2] != idle || !sawSleep {
		t.Errorf("states %v, want %s, active/PgSleep, %s: each instant must read the backends anew", states, idle, idle)
	}
}

// activePhases folds the states a probe sequence passed through into
// phases: every "active" state is one phase, whatever its wait event, since
// an instant may catch the backend active between receiving the statement
// and entering pg_sleep's wait (CI on a busy runner did once). It says
// whether the active phase showed PgSleep.
func activePhases(states []string) (phases []string, slept bool) {
	for _, s := range states {
		p := s
		if s == "active" || strings.HasPrefix(s, "active/") {
			p = "active"
		}
		if s == "active/PgSleep" {
			slept = true
		}
		if len(phases) == 0 || phases[len(phases)-1] != p {
			phases = append(phases, p)
		}
	}
	return phases, slept
}

// TestIntegrationLatenessAndBurst checks the two in-server CPU signals on a
// real server: every instant after the first of a batch slept and reports
// how late it woke (non-negative, under the batch's interval on an idle
// lab server), and a CPU burst returns one positive duration per piece.
func TestIntegrationLatenessAndBurst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := labtest.Server(ctx, t)
	obs, err := pg.Connect(ctx, c.ConnString("postgres"), "publisher")
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	const n, interval = 10, 50 * time.Millisecond
	probes, err := readWaitBatch(ctx, obs, Publisher, []int32{1 << 30}, n, interval)
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != n || probes[0].LateMS != nil {
		t.Fatalf("%d probes, the first with lateness %v: want %d, nil", len(probes), probes[0].LateMS, n)
	}
	for i, p := range probes[1:] {
		if p.LateMS == nil || *p.LateMS < 0 || *p.LateMS >= float64(interval.Milliseconds()) {
			t.Errorf("probe %d: lateness %v ms, want 0 <= late < %d", i+1, p.LateMS, interval.Milliseconds())
		}
	}
	ms, err := readBurst(ctx, obs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("burst pieces %v ms", ms)
	if len(ms) != burstParts {
		t.Fatalf("%d pieces, want %d", len(ms), burstParts)
	}
	for i, d := range ms {
		if d <= 0 || d > 10000 {
			t.Errorf("piece %d took %v ms, want a positive duration", i, d)
		}
	}
}
