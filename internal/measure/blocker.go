package measure

import (
	"sort"
	"strings"

	"github.com/lagscope/lagscope/internal/sample"
)

// Blocker is a session that held a heavyweight lock one of a path's
// apply-side workers waited for (pg_blocking_pids on the subscriber), over
// the window: the session as the last tick that saw it block a worker.
type Blocker struct {
	sample.Session
	// XactAgeS is the age of its transaction at the last tick that saw it, seconds.
	XactAgeS float64 `json:"xact_age_s,omitempty"`
	Query    string  `json:"query,omitempty"`
	// WaitEvent is the lock the worker waited for (relation, tuple, transactionid, ...).
	WaitEvent string `json:"wait_event,omitempty"`
	// Waiter names the kind of worker it blocked ("apply worker",
	// "parallel apply worker", "tablesync worker").
	Waiter string `json:"waiter,omitempty"`
	// BackendStart is its backend_start (sample.Blocker.BackendStart; ""
	// unknown): a statement that ends it names it by pid and start time.
	BackendStart string `json:"backend_start,omitempty"`
	// Ticks is the number of ticks at which it blocked a worker.
	Ticks int `json:"ticks"`
}

// Blockers gathers the sessions that blocked the workers of the
// subscriptions using slot, most often seen first (ties by pid); none when
// no worker waited on one. The subscription's own workers block each other
// by design (a leader and its parallel worker on applytransaction): they are
// not a session to end, and are left out.
func Blockers(rec *sample.Recording, slot string) []Blocker {
	byPID := map[int]*Blocker{}
	for _, t := range rec.Ticks {
		workers := map[int]string{}
		for _, s := range t.Read(sample.SubscriberNode).Subs {
			if s.Slot != slot {
				continue
			}
			for _, w := range s.OtherWorkers {
				workers[w] = "replication worker"
			}
			for _, w := range s.SyncWorkers {
				workers[w] = "tablesync worker"
			}
			for _, w := range s.ParallelWorkers {
				workers[w] = "parallel apply worker"
			}
			workers[s.WorkerPID] = "apply worker"
		}
		seen := map[int]bool{}
		for _, b := range t.Read(sample.SubscriberNode).Blockers {
			if workers[b.WaiterPID] == "" || workers[b.PID] != "" || strings.HasPrefix(b.BackendType, "logical replication") || seen[b.PID] {
				continue
			}
			seen[b.PID] = true
			x := byPID[b.PID]
			if x == nil {
				x = &Blocker{}
				byPID[b.PID] = x
			}
			x.Session, x.XactAgeS, x.Query, x.WaitEvent, x.Waiter, x.BackendStart = b.Session, b.XactAgeS, b.Query, b.WaitEvent, workers[b.WaiterPID], b.BackendStart
			x.Ticks++
		}
	}
	out := make([]Blocker, 0, len(byPID))
	for _, b := range byPID {
		out = append(out, *b)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Ticks != out[j].Ticks {
			return out[i].Ticks > out[j].Ticks
		}
		return out[i].PID < out[j].PID
	})
	return out
}
