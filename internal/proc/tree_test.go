package proc

import (
	"errors"
	"testing"
	"time"
)

func TestTreeCPU(t *testing.T) {
	fs, err := NewFS("testdata/tree")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		pid  int
		want time.Duration
	}{
		// 100: utime 10 + stime 5 + cutime 300 + cstime 200; live children
		// 101 (40+10) and 102 (7+3); 103 is not its child.
		{"a postmaster counts itself, its reaped children and its live children", 100, 575 * 10 * time.Millisecond},
		{"a process without children counts itself only", 101, 50 * 10 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fs.TreeCPU(tc.pid)
			if err != nil || got != tc.want {
				t.Errorf("TreeCPU(%d) = %s, %v; want %s", tc.pid, got, err, tc.want)
			}
		})
	}
	if _, err := fs.TreeCPU(4242); !errors.Is(err, ErrNoProcess) {
		t.Errorf("TreeCPU of a missing pid: %v, want ErrNoProcess", err)
	}
}
