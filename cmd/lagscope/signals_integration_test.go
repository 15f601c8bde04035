package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// labBase makes a private lab base directory for one test, traversable by the
// server account.
func labBase(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("", "lagscope-sigtest-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(base, 0o755)
	t.Cleanup(func() { os.RemoveAll(base) })
	return base
}

// startLabRun starts 'lab run' and waits until both servers of its lab run.
func startLabRun(t *testing.T, bin, base string) (*exec.Cmd, *bytes.Buffer, []int) {
	t.Helper()
	cmd := exec.Command(bin, "lab", "run", "walsender-starved", "--rows", "20000", "--duration", "60s")
	cmd.Env = append(os.Environ(), "LAGSCOPE_LAB_DIR="+base)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		los, _ := cluster.FindLeftovers(base)
		if len(los) == 1 && len(los[0].Servers) == 2 && strings.Contains(out.String(), "building a backlog") {
			return cmd, &out, los[0].Servers
		}
		time.Sleep(200 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("the lab did not come up within 90 s:\n%s", out.String())
	return nil, nil, nil
}

// alive reports whether pid runs (neither gone nor a zombie).
func alive(pid int) bool {
	fs, err := proc.NewFS("")
	return err == nil && fs.Alive(pid)
}

// assertClean fails unless no server of servers runs and base holds no lab.
func assertClean(t *testing.T, base string, servers []int) {
	t.Helper()
	for _, pid := range servers {
		if alive(pid) {
			t.Errorf("server pid %d still running", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 0 {
		t.Errorf("lab directories left in %s: %v", base, entries)
	}
}

func TestIntegrationInterruptRemovesTheLab(t *testing.T) {
	labtest.Once(t) // lagscope's own clean-up: the same on every server version
	bin := buildLagscope(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			base := labBase(t)
			cmd, out, servers := startLabRun(t, bin, base)
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if code := cmd.ProcessState.ExitCode(); code != 130 {
					t.Errorf("exit code %d (%v), want 130; output:\n%s", code, err, out)
				}
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("lagscope did not exit within 60 s of %s", sig)
			}
			assertClean(t, base, servers)
		})
	}
}

func TestIntegrationSIGKILLLeavesNoServerAndLabCleanRemovesTheRest(t *testing.T) {
	labtest.Once(t) // lagscope's own clean-up: the same on every server version
	bin := buildLagscope(t)
	base := labBase(t)
	cmd, _, servers := startLabRun(t, bin, base)
	cmd.Process.Kill()
	cmd.Wait()
	// The servers get SIGQUIT from the kernel (parent-death signal) and exit by themselves.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !alive(servers[0]) && !alive(servers[1]) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, pid := range servers {
		if alive(pid) {
			t.Errorf("server pid %d still running 10 s after lagscope was killed", pid)
		}
	}
	clean := exec.Command(bin, "lab", "clean")
	clean.Env = append(os.Environ(), "LAGSCOPE_LAB_DIR="+base)
	out, err := clean.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "removed") {
		t.Errorf("lab clean: %v\n%s", err, out)
	}
	assertClean(t, base, servers)
}
