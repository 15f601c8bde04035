package sample

// ApplyCPUs is how many CPUs subscription sub's leader apply worker may run
// on (its affinity, its cgroup's cpuset and CPU quota: ProcStat.CPUsAllowed)
// at the last tick that read it, with what narrows it ("affinity",
// "cpuset", "cpu.max"); 0 and "" when no tick did (no /proc there, or a
// recording made before lagscope read it).
func (r *Recording) ApplyCPUs(sub string) (int, string) {
	for i := len(r.Ticks) - 1; i >= 0; i-- {
		tk := &r.Ticks[i]
		pid := 0
		for _, s := range tk.Read(SubscriberNode).Subs {
			if s.Name == sub {
				pid = s.WorkerPID
			}
		}
		if pid == 0 {
			continue
		}
		for _, ps := range tk.Procs {
			if ps.Side == Subscriber && ps.PID == pid && ps.Role == RoleApply && ps.CPUsAllowed > 0 {
				return ps.CPUsAllowed, ps.CPUsAllowedBy
			}
		}
	}
	return 0, ""
}
