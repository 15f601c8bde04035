package proc

import "time"

// TreeCPU is the CPU time of a process and all its children, live or gone:
// its own user+system time, what its reaped children used (cutime+cstime,
// fields 16 and 17 of stat), and the user+system time of its live children.
// For a postmaster that is the CPU of the whole PostgreSQL server, since the
// postmaster reaps every backend it forks. The difference of two readings is
// the server's CPU in between (a child that exits between them is counted
// once: first as live, then as reaped). Grandchildren are not read (PostgreSQL
// has none).
func (fs FS) TreeCPU(pid int) (time.Duration, error) {
	p, err := fs.proc.Proc(pid)
	if err != nil {
		return 0, fs.processErr(pid, "stat", err)
	}
	st, err := p.Stat()
	if err != nil {
		return 0, fs.processErr(pid, "stat", err)
	}
	ticks := int64(st.UTime+st.STime) + int64(st.CUTime+st.CSTime)
	all, err := fs.proc.AllProcs()
	if err != nil {
		return 0, err
	}
	for _, c := range all {
		cs, err := c.Stat()
		if err != nil || cs.PPID != pid {
			continue // exited while listing, or not a child
		}
		ticks += int64(cs.UTime + cs.STime)
	}
	return time.Duration(ticks) * tick, nil
}
