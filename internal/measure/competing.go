package measure

import (
	"sort"

	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// Competing is the load that shared a server's CPUs with its replication
// processes over the window: its client backends active in
// pg_stat_activity, grouped by application_name and user, and (with
// /proc) the CPU every process of the host used on the CPUs those
// replication processes may run on. Names are as the servers and /proc
// report them: hostile text, quoted where shown.
type Competing struct {
	// CPUs are the CPUs the replication processes may run on ("" when
	// /proc was not read: no CPU shares below).
	CPUs string `json:"cpus,omitempty"`
	// Backends are the client backends, busiest first.
	Backends []BackendLoad `json:"backends,omitempty"`
	// Others are the host's other processes that used CPU there (not
	// backends seen active, not the replication processes), busiest first.
	Others []ProcLoad `json:"others,omitempty"`
}

// BackendLoad is a group of client backends of one application_name and
// user.
type BackendLoad struct {
	App  string `json:"application_name"`
	User string `json:"user"`
	// Count is the number of distinct backends seen active.
	Count int `json:"count"`
	// Active is the mean number of them active at a tick that read the
	// backends (1.0: one backend running a statement all the time).
	Active float64 `json:"active"`
	// CPUShare is their CPU time over the span /proc measured (1.0 = one
	// core); -1 when /proc was not read.
	CPUShare float64 `json:"cpu_share" jsonschema:"nullable"`
}

// ProcLoad is one process of the host and its CPU share (1.0 = one core).
type ProcLoad struct {
	PID      int     `json:"pid"`
	Comm     string  `json:"comm"`
	CPUShare float64 `json:"cpu_share"`
}

// MinCompetingShare is the least CPU share of one core a process must have
// used to be named among the competing load (lagscope's own session, the
// checkpointer and the like stay under it).
const MinCompetingShare = 0.02

// maxOthers bounds the other processes named.
const maxOthers = 8

// CPUShare is the CPU the competing load used in all (backends and other
// processes, 1.0 = one core); -1 when /proc was not read.
func (c *Competing) CPUShare() float64 {
	if c == nil || c.CPUs == "" {
		return -1
	}
	total := 0.0
	for _, b := range c.Backends {
		total += max(b.CPUShare, 0)
	}
	for _, o := range c.Others {
		total += o.CPUShare
	}
	return total
}

// competing summarises node's competing load over ticks; nil when the
// recording read none (recordings before lagscope read active backends).
// own are the node's replication processes (the starved ones): not load.
func competing(ticks []sample.Tick, node topology.NodeID, own map[int]bool) *Competing {
	type key struct{ app, user string }
	groups := map[key]*BackendLoad{}
	pids := map[key]map[int]bool{}
	of := map[int]key{}
	read := 0
	var load *sample.HostLoad
	var loadAt sample.Tick
	for _, t := range ticks {
		rd := t.Read(node)
		if rd.Load != nil {
			load, loadAt = rd.Load, t
		}
		if rd.Active == nil {
			continue
		}
		read++
		for _, b := range rd.Active {
			if own[b.PID] {
				continue
			}
			k := key{b.App, b.User}
			if groups[k] == nil {
				groups[k], pids[k] = &BackendLoad{App: b.App, User: b.User, CPUShare: -1}, map[int]bool{}
			}
			groups[k].Active++
			pids[k][b.PID] = true
			of[b.PID] = k
		}
	}
	if read == 0 && load == nil {
		return nil
	}
	c := &Competing{}
	var others []ProcLoad
	if load != nil {
		span := loadAt.At.Sub(load.Since).Seconds()
		if span > 0 {
			c.CPUs = load.CPUs
			for _, g := range groups {
				g.CPUShare = 0
			}
			for _, p := range load.Procs {
				share := float64(p.CPUNs) / 1e9 / span
				switch k, ok := of[p.PID]; {
				case own[p.PID]:
				case ok:
					groups[k].CPUShare += share
				case share >= MinCompetingShare:
					others = append(others, ProcLoad{PID: p.PID, Comm: p.Comm, CPUShare: share})
				}
			}
		}
	}
	for k, g := range groups {
		g.Count = len(pids[k])
		if read > 0 {
			g.Active /= float64(read)
		}
		c.Backends = append(c.Backends, *g)
	}
	sort.Slice(c.Backends, func(i, j int) bool {
		a, b := c.Backends[i], c.Backends[j]
		if a.CPUShare != b.CPUShare {
			return a.CPUShare > b.CPUShare
		}
		if a.Active != b.Active {
			return a.Active > b.Active
		}
		return a.App+"\x00"+a.User < b.App+"\x00"+b.User
	})
	sort.Slice(others, func(i, j int) bool {
		if others[i].CPUShare != others[j].CPUShare {
			return others[i].CPUShare > others[j].CPUShare
		}
		return others[i].PID < others[j].PID
	})
	if len(others) > maxOthers {
		others = others[:maxOthers]
	}
	c.Others = others
	return c
}
