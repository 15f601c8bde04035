package lab

import (
	"math"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/proc"
)

// The standby's summary: rates over the window from the first and last
// ticks, backlogs at both ends, the paused share, and the startup
// process's CPU over the ticks that began with replay behind only.
func TestSummariseStandby(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ps := func(running, delay time.Duration) proc.ProcSample {
		return proc.ProcSample{PID: 7, Start: t0, Running: running, RunDelay: delay, HasSchedstat: true}
	}
	ticks := []physTick{
		// 10 MB behind; over the next 2 s the startup process runs 1.8 s.
		{at: t0, current: 20e6, recv: 20e6, replay: 10e6, paused: true, startup: 7, cpu: ps(0, 0), cpuOK: true},
		// 512 kB behind: caught up; the next 2 s (idle) do not count.
		{at: t0.Add(2 * time.Second), current: 30e6, recv: 30e6, replay: lsn.LSN(30e6 - 512<<10), startup: 7, cpu: ps(1800*time.Millisecond, 200*time.Millisecond), cpuOK: true},
		{at: t0.Add(4 * time.Second), current: 40e6, recv: 40e6, replay: 40e6, replayAge: 3, syncState: "async", startup: 7, cpu: ps(1900*time.Millisecond, 200*time.Millisecond), cpuOK: true},
	}
	r := summariseStandby(ticks)
	near := func(name string, got, want float64) {
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("generated", r.GeneratedMBps, 5)
	near("received", r.ReceivedMBps, 5)
	near("replayed", r.ReplayedMBps, 7.5)
	near("paused share", r.PausedShare, 1.0/3)
	near("startup CPU", r.Startup.CPUShare, 0.9)
	near("startup run queue", r.Startup.RunqueueShare, 0.1)
	near("behind", r.BehindS, 2)
	if r.ReplayBacklogStart != 10e6 || r.ReplayBacklogEnd != 0 || r.ReceiveBacklogEnd != 0 || r.ReplayAgeS != 3 || r.SyncState != "async" || r.Cascade != nil {
		t.Errorf("summary %+v", r)
	}
	// Never behind: the CPU is over every tick.
	for i := range ticks {
		ticks[i].replay = ticks[i].current
	}
	r = summariseStandby(ticks)
	near("startup CPU when never behind", r.Startup.CPUShare, 0.475)
	near("behind when never behind", r.BehindS, 0)
}
