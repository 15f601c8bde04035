package proc

import (
	"math"
	"testing"
	"time"
)

func TestShare(t *testing.T) {
	start := time.Unix(1795982000, 0)
	sample := func(cpu, running, delay time.Duration, sched bool) ProcSample {
		return ProcSample{PID: 42, Start: start, CPU: cpu, Running: running, RunDelay: delay, HasSchedstat: sched}
	}
	tests := []struct {
		name      string
		prev, cur ProcSample
		wall      time.Duration
		cpu, runq float64
	}{
		{
			name: "Schedstat running and waiting times are divided by the wall time",
			prev: sample(1*time.Second, 1*time.Second, 2*time.Second, true),
			cur:  sample(2*time.Second, 1900*time.Millisecond, 2400*time.Millisecond, true),
			wall: time.Second,
			cpu:  0.9, runq: 0.4,
		},
		{
			name: "Without schedstat the tick counter gives the CPU share and the run queue is unknown",
			prev: sample(1*time.Second, 0, 0, false),
			cur:  sample(1500*time.Millisecond, 0, 0, false),
			wall: 2 * time.Second,
			cpu:  0.25, runq: 0,
		},
		{
			name: "Schedstat in only one sample falls back to the tick counter",
			prev: sample(1*time.Second, 0, 0, false),
			cur:  sample(1100*time.Millisecond, 5*time.Second, time.Second, true),
			wall: time.Second,
			cpu:  0.1, runq: 0,
		},
		{
			name: "An idle process has no share",
			prev: sample(time.Second, time.Second, time.Second, true),
			cur:  sample(time.Second, time.Second, time.Second, true),
			wall: time.Second,
		},
		{
			name: "A zero interval gives zero rather than dividing by it",
			prev: sample(0, 0, 0, true),
			cur:  sample(time.Second, time.Second, time.Second, true),
			wall: 0,
		},
		{
			name: "A reused pid with another start time gives zero",
			prev: sample(5*time.Second, 5*time.Second, 0, true),
			cur: ProcSample{PID: 42, Start: start.Add(time.Minute), CPU: time.Second,
				Running: time.Second, HasSchedstat: true},
			wall: time.Second,
		},
		{
			name: "Samples of different pids give zero",
			prev: sample(0, 0, 0, true),
			cur:  ProcSample{PID: 43, Start: start, CPU: time.Second, Running: time.Second, HasSchedstat: true},
			wall: time.Second,
		},
		{
			name: "A counter that went backwards counts as zero",
			prev: sample(0, 2*time.Second, 2*time.Second, true),
			cur:  sample(0, time.Second, 2500*time.Millisecond, true),
			wall: time.Second,
			cpu:  0, runq: 0.5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cpu, runq := Share(tt.prev, tt.cur, tt.wall)
			if !near(cpu, tt.cpu) || !near(runq, tt.runq) {
				t.Errorf("Share() = %v, %v; want %v, %v", cpu, runq, tt.cpu, tt.runq)
			}
		})
	}
}

func TestHostBusy(t *testing.T) {
	tests := []struct {
		name      string
		prev, cur HostSample
		want      float64
	}{
		{
			name: "Busy time over total time is the busy fraction of the whole host",
			prev: HostSample{Busy: 10 * time.Second, Total: 40 * time.Second, CPUs: 4},
			cur:  HostSample{Busy: 13 * time.Second, Total: 44 * time.Second, CPUs: 4},
			want: 0.75,
		},
		{
			name: "A fully idle interval is zero",
			prev: HostSample{Busy: 10 * time.Second, Total: 40 * time.Second},
			cur:  HostSample{Busy: 10 * time.Second, Total: 42 * time.Second},
			want: 0,
		},
		{
			name: "No time passing gives zero rather than dividing by it",
			prev: HostSample{Busy: 10 * time.Second, Total: 40 * time.Second},
			cur:  HostSample{Busy: 10 * time.Second, Total: 40 * time.Second},
			want: 0,
		},
		{
			name: "Samples in the wrong order give zero",
			prev: HostSample{Busy: 13 * time.Second, Total: 44 * time.Second},
			cur:  HostSample{Busy: 10 * time.Second, Total: 40 * time.Second},
			want: 0,
		},
		{
			name: "A busy delta larger than the total is capped at one",
			prev: HostSample{Busy: 0, Total: 0},
			cur:  HostSample{Busy: 3 * time.Second, Total: 2 * time.Second},
			want: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HostBusy(tt.prev, tt.cur); !near(got, tt.want) {
				t.Errorf("HostBusy() = %v, want %v", got, tt.want)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
