package sample

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/proc"
)

// Sources of the competing load: a node's active client backends, read
// every tick from pg_stat_activity (with or without /proc), and the CPU
// the host's processes used on the CPUs its replication processes may run
// on, read from /proc at the window's first and last ticks.
const (
	SourceActive   = "active_backends"
	SourceHostLoad = "host_load"
)

// ActiveBackend is a client backend that was running a statement when the
// tick read the node (pg_stat_activity state 'active'), besides lagscope's
// own sessions. Names are as the server reports them: hostile text.
type ActiveBackend struct {
	PID  int    `json:"pid"`
	App  string `json:"application_name,omitempty"`
	User string `json:"user,omitempty"`
	// WaitType and WaitEvent are what it waited on at the tick ("" when
	// on a CPU, and in recordings before version 12): a primary's
	// backends in SyncRep wait for a synchronous standby.
	WaitType  string `json:"wait_event_type,omitempty"`
	WaitEvent string `json:"wait_event,omitempty"`
}

// HostLoad is the CPU the host's processes used between the window's first
// tick (Since) and the tick that holds it, among the processes that may run
// on CPUs (those the node's replication processes may run on: their
// affinity and cpuset, Cpus_allowed_list). Only processes that used CPU are
// listed; one started in between counts its whole CPU time.
type HostLoad struct {
	Since time.Time  `json:"since"`
	CPUs  string     `json:"cpus"`
	Procs []LoadProc `json:"procs"`
}

// LoadProc is one process's CPU time over a HostLoad's span.
type LoadProc struct {
	PID   int    `json:"pid"`
	Comm  string `json:"comm"`
	CPUNs int64  `json:"cpu_ns"`
}

// activeSQL lists the node's active client backends, lagscope's own
// statements left out (pg.Marker starts them).
const activeSQL = pg.Marker + `SELECT pid, coalesce(application_name, ''), coalesce(usename::text, ''),
	coalesce(wait_event_type, ''), coalesce(wait_event, '')
FROM pg_stat_activity
WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()
	AND left(query, $1::int) <> $2
ORDER BY pid`

func readActive(ctx context.Context, c *pg.Conn) ([]ActiveBackend, error) {
	rows, err := c.Query(ctx, activeSQL, len(pg.Marker), pg.Marker)
	if err != nil {
		return nil, fmt.Errorf("read the active backends: %w", err)
	}
	defer rows.Close()
	out := []ActiveBackend{}
	for rows.Next() {
		var b ActiveBackend
		if err := rows.Scan(&b.PID, &b.App, &b.User, &b.WaitType, &b.WaitEvent); err != nil {
			return nil, fmt.Errorf("read the active backends: %w", err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the active backends: %w", err)
	}
	return out, nil
}

// readActiveSource reads the node's active client backends.
func readActiveSource(ctx context.Context, s *session, r *Read, _ map[int]procKey) error {
	var err error
	r.Active, err = bestEffort(ctx, func(ctx context.Context) ([]ActiveBackend, error) { return readActive(ctx, s.conn) })
	return err
}

// hostLoadDue reads the host's load at the window's first tick and its
// last: the CPU used in between is their difference (a census of every
// process costs more than a tick should, every tick).
func (s *session) hostLoadDue(_ time.Time, final bool) bool {
	return final || s.loadFrom == nil
}

// readHostLoadSource reads, from /proc, the CPU time of the processes that
// may run on the CPUs of the node's replication processes (backends): at
// the first tick it keeps the reading, at the last it writes the
// difference into r.
func readHostLoadSource(_ context.Context, s *session, r *Read, backends map[int]procKey, pr ProcReader, at time.Time) error {
	if len(backends) == 0 {
		return nil
	}
	var cpus []int
	for pid := range backends {
		a, err := pr.Allowed(pid)
		if err != nil {
			continue
		}
		cpus = append(cpus, a...)
	}
	if len(cpus) == 0 {
		return nil
	}
	slices.Sort(cpus)
	cpus = slices.Compact(cpus)
	procs, err := pr.Load(cpus)
	if err != nil {
		return err
	}
	if s.loadFrom == nil {
		s.loadFrom, s.loadAt = map[int]proc.ProcCPU{}, at
		for _, p := range procs {
			s.loadFrom[p.PID] = p
		}
		return nil
	}
	r.Load = &HostLoad{Since: s.loadAt, CPUs: proc.FormatCPUList(cpus), Procs: loadDelta(s.loadFrom, procs, s.loadAt)}
	return nil
}

// loadDelta is the CPU each process of cur used since from (taken at
// since): a process not in from, or another one under its pid (its start
// differs), counts its whole CPU time if it started after since.
func loadDelta(from map[int]proc.ProcCPU, cur []proc.ProcCPU, since time.Time) []LoadProc {
	out := []LoadProc{}
	for _, p := range cur {
		d := p.CPU
		if f, ok := from[p.PID]; ok && f.Start.Equal(p.Start) {
			d -= f.CPU
		} else if p.Start.Before(since.Add(-time.Second)) {
			continue // there before the first reading but not read then
		}
		if d > 0 {
			out = append(out, LoadProc{PID: p.PID, Comm: p.Comm, CPUNs: int64(d)})
		}
	}
	return out
}
