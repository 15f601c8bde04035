package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prometheus/procfs"
)

// ProcSample is one reading of a process's cumulative CPU counters. Counters only
// grow while the process lives; compare two samples of the same process with
// Share.
//
// CPU counts every thread of the process (/proc/<pid>/stat); Running and
// RunDelay count only the thread whose id is PID (/proc/<pid>/schedstat), which
// for a PostgreSQL backend is the whole process: backends are single-threaded.
type ProcSample struct {
	// PID is the process id the sample was read for.
	PID int
	// CPU is user plus system time (utime+stime, fields 14 and 15 of
	// /proc/<pid>/stat) since the process started, in 10 ms clock-tick steps.
	// It includes guest time and excludes waited-for children.
	CPU time.Duration
	// RunDelay is how long the thread has been runnable but waiting for a CPU on
	// a run queue (schedstat field 2), in nanoseconds. Zero when HasSchedstat is
	// false.
	RunDelay time.Duration
	// Running is how long the thread has run on a CPU (schedstat field 1), in
	// nanoseconds: more precise than CPU. Zero when HasSchedstat is false.
	Running time.Duration
	// HasSchedstat is true when /proc/<pid>/schedstat was read. It is false on
	// kernels built without CONFIG_SCHED_INFO; Running and RunDelay are then zero,
	// which does not mean the process never waited.
	HasSchedstat bool
	// Start is when the process started, wall clock: boot time plus starttime
	// (field 22). Boot time has whole-second resolution, so Start may be off by
	// up to a second; it is stable across samples of one process, and a
	// different Start for the same PID means the pid was reused.
	Start time.Time
	// Comm is the command name (field 2, without the parentheses; at most 15
	// bytes, may contain spaces and parentheses). PostgreSQL sets it to
	// "postgres"; its process title is in /proc/<pid>/cmdline.
	Comm string
	// State is the one-letter scheduler state (field 3): R running or runnable,
	// S sleeping, D uninterruptible (usually I/O), Z zombie, T stopped, ...
	State string
	// Processor is the CPU the process last ran on (field 39).
	Processor int
}

// Process reads the CPU counters of process pid. When the process does not
// exist, or exits while being read, the error matches ErrNoProcess.
//
// A thread id works too (/proc/<tid> resolves although it is not listed); CPU is
// then still the total of the whole process, Running and RunDelay that thread's.
func (fs FS) Process(pid int) (ProcSample, error) {
	p, err := fs.proc.Proc(pid)
	if err != nil {
		return ProcSample{}, fs.processErr(pid, "stat", err)
	}
	st, err := p.Stat()
	if err != nil {
		return ProcSample{}, fs.processErr(pid, "stat", err)
	}
	var sched *procfs.ProcSchedstat
	ss, err := p.Schedstat()
	switch {
	case err == nil:
		sched = &ss
	case gone(err) && fs.exists(pid):
		// No schedstat file although the process is there: the kernel lacks
		// CONFIG_SCHED_INFO. Report what stat has.
	default:
		return ProcSample{}, fs.processErr(pid, "schedstat", err)
	}
	return newProcSample(pid, st, sched, fs.boot), nil
}

// newProcSample converts procfs's parsed stat and schedstat (nil when absent)
// into a ProcSample; boot is the host's boot time.
func newProcSample(pid int, st procfs.ProcStat, sched *procfs.ProcSchedstat, boot time.Time) ProcSample {
	s := ProcSample{
		PID:       pid,
		CPU:       time.Duration(st.UTime+st.STime) * tick,
		Start:     boot.Add(time.Duration(st.Starttime) * tick),
		Comm:      st.Comm,
		State:     st.State,
		Processor: int(st.Processor),
	}
	if sched != nil {
		s.HasSchedstat = true
		s.Running = time.Duration(sched.RunningNanoseconds)
		s.RunDelay = time.Duration(sched.WaitingNanoseconds)
	}
	return s
}

// exists reports whether <root>/<pid> is still there.
func (fs FS) exists(pid int) bool {
	_, err := os.Stat(filepath.Join(fs.root, strconv.Itoa(pid)))
	return err == nil
}

// processErr wraps an error reading <root>/<pid>/<file>, turning "not there"
// into ErrNoProcess.
func (fs FS) processErr(pid int, file string, err error) error {
	if gone(err) {
		return fmt.Errorf("read %s/%d/%s: process %d: %w", fs.root, pid, file, pid, ErrNoProcess)
	}
	return fmt.Errorf("read %s/%d/%s: %w", fs.root, pid, file, err)
}
