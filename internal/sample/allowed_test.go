package sample

import "testing"

// A subscription's apply worker's allowed CPUs come from the last tick that
// read them for its pid; other pids, roles and older recordings say nothing.
func TestApplyCPUsIsTheLastReadOfTheSubscriptionsWorker(t *testing.T) {
	var r Recording
	for i, c := range []struct {
		pid, n int
		by     string
	}{{10, 2, "affinity"}, {11, 1, "cpuset"}, {11, 0, ""}} {
		r.Ticks = append(r.Ticks, Tick{})
		tk := &r.Ticks[i]
		tk.Edit(SubscriberNode).Subs = []Sub{{Name: "s", WorkerPID: c.pid}, {Name: "other", WorkerPID: 99}}
		tk.Procs = []ProcStat{{Side: Subscriber, PID: c.pid, Role: RoleApply, CPUsAllowed: c.n, CPUsAllowedBy: c.by},
			{Side: Subscriber, PID: 99, Role: RoleApply, CPUsAllowed: 4, CPUsAllowedBy: "affinity"}}
	}
	if n, by := r.ApplyCPUs("s"); n != 1 || by != "cpuset" {
		t.Errorf("s: %d %q, want 1 cpuset (the last tick that read its worker)", n, by)
	}
	if n, by := r.ApplyCPUs("other"); n != 4 || by != "affinity" {
		t.Errorf("other: %d %q, want 4 affinity", n, by)
	}
	if n, by := r.ApplyCPUs("none"); n != 0 || by != "" {
		t.Errorf("an unknown subscription: %d %q, want nothing", n, by)
	}
}
