package lab

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// OSHogComm is the command name of the lab's busy-loop processes outside
// PostgreSQL (a shell looping on ':'): what diagnose's competing load must
// name in the os-hog scenarios.
const OSHogComm = "sh"

// osHogScript loops without a system call: all CPU, no I/O, no sleep.
const osHogScript = "while :; do :; done"

// osHogs are busy-loop processes outside PostgreSQL pinned to one side's
// CPUs, each in a session (and process group) of its own.
type osHogs struct {
	cmds []*exec.Cmd
}

// StartOSHogs starts n busy-loop processes outside PostgreSQL pinned to
// cpus (a side's PubCPUs or SubCPUs), as the lab's account when the lab
// runs as root (the servers' owner), killed by StopOSHogs, Close, or when
// lagscope dies (Pdeathsig). The server's processes on those CPUs then
// share them with the loops, as with other programs on a database host.
//
// Each loop is a session of its own, as the server is (the postmaster
// calls setsid), as separate services on a host are: with the kernel's
// autogroup scheduling (sched_autogroup_enabled, Debian's default) the CPU
// is shared between sessions, so n loops leave the server's processes
// about 1/(n+1) of it. In one session with the lab (as before 2026-12-05)
// the loops together took half of it whatever their number, and the
// walsender's half a core raced the apply worker's full one (6 of 10 runs
// of os-hog-publisher on 18.4 made the state).
func (p *Pair) StartOSHogs(cpus []int, n int) error {
	if p.osHogs != nil {
		return fmt.Errorf("the lab already runs %d busy-loop process(es)", len(p.osHogs.cmds))
	}
	if len(cpus) == 0 {
		return errors.New("busy-loop processes: the side is not pinned to CPUs (they would not share its CPUs)")
	}
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	h := &osHogs{}
	for range n {
		cmd := exec.Command("/bin/sh", "-c", osHogScript)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setsid: true}
		if o := p.Lab.Owner; !o.IsZero() {
			cmd.SysProcAttr.Credential = &syscall.Credential{Uid: o.UID, Gid: o.GID, Groups: []uint32{}}
		}
		if err := cmd.Start(); err != nil {
			h.stop()
			return fmt.Errorf("start a busy-loop process: %w", err)
		}
		h.cmds = append(h.cmds, cmd)
		if err := unix.SchedSetaffinity(cmd.Process.Pid, &set); err != nil {
			h.stop()
			return fmt.Errorf("pin busy-loop process %d to CPUs %v: %w", cmd.Process.Pid, cpus, err)
		}
	}
	p.osHogs = h
	return nil
}

// OSHogPIDs are the pids of the busy-loop processes running (none when
// StartOSHogs did not run).
func (p *Pair) OSHogPIDs() []int {
	if p == nil || p.osHogs == nil {
		return nil
	}
	var out []int
	for _, c := range p.osHogs.cmds {
		out = append(out, c.Process.Pid)
	}
	return slices.Clip(out)
}

// StopOSHogs kills the busy-loop processes, if any, and waits for them.
func (p *Pair) StopOSHogs() {
	if p == nil || p.osHogs == nil {
		return
	}
	p.osHogs.stop()
	p.osHogs = nil
}

func (h *osHogs) stop() {
	for _, c := range h.cmds {
		// Its own session and process group: the shell and anything it
		// started.
		if err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			c.Process.Kill()
		}
		c.Wait()
	}
	h.cmds = nil
}
