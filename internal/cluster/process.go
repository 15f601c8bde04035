package cluster

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// processAlive reports whether pid exists (zombies count as gone).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] != 'Z' && b[i+2] != 'X'
}

// cmdline returns the argv of pid.
func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil
	}
	var args []string
	for _, a := range bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0}) {
		args = append(args, string(a))
	}
	return args
}

// isLagscope reports whether pid runs a lagscope binary (or a Go test binary
// of this module, which also makes labs).
func isLagscope(pid int) bool {
	args := cmdline(pid)
	if len(args) == 0 {
		return false
	}
	exe, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	return bytes.Contains([]byte(args[0]+" "+exe), []byte("lagscope")) ||
		bytes.HasSuffix([]byte(exe), []byte(".test"))
}

// serverOf reports whether pid is a postgres server whose data directory is dataDir.
func serverOf(pid int, dataDir string) bool {
	if !processAlive(pid) {
		return false
	}
	args := cmdline(pid)
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
