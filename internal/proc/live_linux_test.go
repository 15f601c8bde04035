package proc

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// liveFS opens the real /proc, skipping when it is not there.
func liveFS(t *testing.T) FS {
	t.Helper()
	fs, err := NewFS("")
	if err != nil {
		t.Skipf("no readable /proc on this machine: %v", err)
	}
	return fs
}

// TestProcessSelfGrows reads this test's own thread before and after a busy loop.
// It checks only that the counters grow; the deadline guards against a hang.
func TestProcessSelfGrows(t *testing.T) {
	fs := liveFS(t)
	// schedstat is per thread: stay on one thread and read that thread's entry.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()

	prev, err := fs.Process(tid)
	if err != nil {
		t.Fatalf("Process(own thread %d): %v", tid, err)
	}
	if prev.PID != tid || prev.Comm == "" || prev.State == "" {
		t.Errorf("Process(%d) = %+v, want its pid, a comm and a state", tid, prev)
	}
	if prev.Start.After(time.Now()) || prev.Start.Before(fs.BootTime()) {
		t.Errorf("Start = %v, want between boot (%v) and now", prev.Start, fs.BootTime())
	}

	deadline := time.Now().Add(30 * time.Second)
	cur := prev
	for i := 1; ; i++ {
		if i%(1<<20) == 0 {
			if cur, err = fs.Process(tid); err != nil {
				t.Fatalf("Process(own thread %d): %v", tid, err)
			}
			grew := cur.CPU > prev.CPU && (!cur.HasSchedstat || cur.Running > prev.Running)
			if grew {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("CPU counters did not grow during 30s of busy loop: before %+v, after %+v", prev, cur)
			}
		}
	}
	if !cur.Start.Equal(prev.Start) {
		t.Errorf("Start changed between samples of one thread: %v then %v", prev.Start, cur.Start)
	}
	if cur.RunDelay < prev.RunDelay {
		t.Errorf("RunDelay went backwards: %v then %v", prev.RunDelay, cur.RunDelay)
	}
	if !cur.HasSchedstat {
		t.Log("this kernel has no /proc/<pid>/schedstat (CONFIG_SCHED_INFO off): Running and RunDelay untested")
	}
}

func TestHostLive(t *testing.T) {
	fs := liveFS(t)
	h, err := fs.Host()
	if err != nil {
		t.Fatalf("Host: %v", err)
	}
	if h.CPUs < 1 || h.Busy <= 0 || h.Total < h.Busy {
		t.Errorf("Host() = %+v, want at least one CPU and 0 < Busy ≤ Total", h)
	}
}

func TestProcessOfAnExitedChildIsNoProcess(t *testing.T) {
	fs := liveFS(t)
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skipf("cannot start /bin/true: %v", err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatalf("wait for /bin/true: %v", err)
	}
	// Reaped: the pid is free (and very unlikely to be reused this fast).
	if _, err := fs.Process(p.Pid); !errors.Is(err, ErrNoProcess) {
		t.Errorf("Process(exited pid %d) error = %v, want ErrNoProcess", p.Pid, err)
	}
}
