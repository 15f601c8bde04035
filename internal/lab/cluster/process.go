package cluster

import (
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lagscope/lagscope/internal/proc"
)

// procFS is this host's /proc, opened once.
var procFS = sync.OnceValues(func() (proc.FS, error) { return proc.NewFS("") })

// processAlive reports whether pid exists (zombies count as gone).
func processAlive(pid int) bool {
	fs, err := procFS()
	return err == nil && fs.Alive(pid)
}

// isLagscope reports whether pid runs a lagscope binary (or a Go test binary
// of this module, which also makes labs).
func isLagscope(pid int) bool {
	fs, err := procFS()
	if err != nil {
		return false
	}
	args, err := fs.Cmdline(pid)
	if err != nil || len(args) == 0 {
		return false
	}
	exe := fs.Executable(pid)
	return strings.Contains(args[0]+" "+exe, "lagscope") || strings.HasSuffix(exe, ".test")
}

// serverOf reports whether pid is a postgres server whose data directory is dataDir.
func serverOf(pid int, dataDir string) bool {
	fs, err := procFS()
	if err != nil || !fs.Alive(pid) {
		return false
	}
	args, _ := fs.Cmdline(pid)
	for i, a := range args {
		if a == "-D" && i+1 < len(args) && args[i+1] == dataDir {
			return true
		}
	}
	return false
}

// killPostmaster asks pid for an immediate shutdown (SIGQUIT), then SIGKILLs
// it and its process group if it is still there after wait.
func killPostmaster(pid int, wait time.Duration) {
	_ = syscall.Kill(pid, syscall.SIGQUIT)
	if waitGone(pid, wait) {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	waitGone(pid, 2*time.Second)
}

// waitGone polls until pid is gone or d passes.
func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !processAlive(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return !processAlive(pid)
}
