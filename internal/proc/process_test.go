package proc

import (
	"errors"
	"testing"
	"time"
)

// fixtureRoot holds /proc files copied from a Debian 12 host (USER_HZ 100, 2 CPUs).
const fixtureRoot = "testdata/proc"

// fixtureBoot is the btime line of testdata/proc/stat.
var fixtureBoot = time.Unix(1795981957, 0)

func fixtureFS(t *testing.T) FS {
	t.Helper()
	fs, err := NewFS(fixtureRoot)
	if err != nil {
		t.Fatalf("NewFS(%q): %v", fixtureRoot, err)
	}
	return fs
}

func TestProcess(t *testing.T) {
	fs := fixtureFS(t)
	tests := []struct {
		name string
		pid  int
		want ProcSample
	}{
		{
			name: "Comm with spaces and a closing parenthesis is split on the last one",
			pid:  6861,
			want: ProcSample{
				PID:          6861,
				CPU:          450 * time.Millisecond, // utime 42 + stime 3 ticks
				RunDelay:     37534568 * time.Nanosecond,
				Running:      455847408 * time.Nanosecond,
				HasSchedstat: true,
				Start:        fixtureBoot.Add(440010 * time.Millisecond), // starttime 44001 ticks
				Comm:         "pg (x) y)z",
				State:        "R",
				Processor:    1,
			},
		},
		{
			name: "A sleeping shell reports user and system time together",
			pid:  2483,
			want: ProcSample{
				PID:          2483,
				CPU:          570 * time.Millisecond, // utime 14 + stime 43 ticks
				RunDelay:     531913418 * time.Nanosecond,
				Running:      587292616 * time.Nanosecond,
				HasSchedstat: true,
				Start:        fixtureBoot.Add(160790 * time.Millisecond),
				Comm:         "bash",
				State:        "S",
				Processor:    0,
			},
		},
		{
			name: "Without a schedstat file the stat figures still come back",
			pid:  2484,
			want: ProcSample{
				PID:       2484,
				CPU:       570 * time.Millisecond,
				Start:     fixtureBoot.Add(160790 * time.Millisecond),
				Comm:      "bash",
				State:     "S",
				Processor: 0,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fs.Process(tt.pid)
			if err != nil {
				t.Fatalf("Process(%d): %v", tt.pid, err)
			}
			if !got.Start.Equal(tt.want.Start) {
				t.Errorf("Start = %v, want %v", got.Start, tt.want.Start)
			}
			got.Start, tt.want.Start = time.Time{}, time.Time{}
			if got != tt.want {
				t.Errorf("Process(%d) =\n%+v\nwant\n%+v", tt.pid, got, tt.want)
			}
		})
	}
}

func TestProcessErrors(t *testing.T) {
	fs := fixtureFS(t)
	tests := []struct {
		name     string
		pid      int
		noProces bool
	}{
		{name: "A pid with no directory is reported as no process", pid: 9999, noProces: true},
		{name: "A stat file without the closing parenthesis is a parse error, not a missing process", pid: 2485, noProces: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fs.Process(tt.pid)
			if err == nil {
				t.Fatalf("Process(%d) = nil error, want one", tt.pid)
			}
			if got := errors.Is(err, ErrNoProcess); got != tt.noProces {
				t.Errorf("errors.Is(%v, ErrNoProcess) = %v, want %v", err, got, tt.noProces)
			}
		})
	}
}

func TestNewFSNeedsAStatFile(t *testing.T) {
	if _, err := NewFS(t.TempDir()); err == nil {
		t.Fatal("NewFS on an empty directory succeeded, want an error about the missing stat file")
	}
}
