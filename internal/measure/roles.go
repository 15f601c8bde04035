package measure

import "github.com/lagscope/lagscope/internal/sample"

// Backend is one server's process.
type Backend struct {
	Side string // sample.Publisher or sample.Subscriber
	PID  int
}

// BackendRole is what a backend did on a path.
type BackendRole struct {
	Role string // sample.RoleWalsender, RoleApply, RoleParallel or RoleTablesync
	// Slot is the path's slot: the walsender's, or its worker's
	// subscription's.
	Slot string
}

// Roles maps the replication backends seen in ts on the paths f selects to
// their role and slot: a walsender by its slot's active_pid, the leader
// apply, parallel apply and tablesync workers by their subscription's
// slot. Ticks are read in order, so a pid that took another role (reused
// by a later process) keeps the last one seen.
func Roles(ts []sample.Tick, f Filter) map[Backend]BackendRole {
	r := map[Backend]BackendRole{}
	for _, t := range ts {
		for _, sl := range t.Read(sample.PublisherNode).Slots {
			if f.has(sl.Name) && sl.ActivePID != 0 {
				r[Backend{sample.Publisher, sl.ActivePID}] = BackendRole{sample.RoleWalsender, sl.Name}
			}
		}
		for _, sb := range t.Read(sample.SubscriberNode).Subs {
			if !f.has(sb.Slot) {
				continue
			}
			if sb.WorkerPID != 0 {
				r[Backend{sample.Subscriber, sb.WorkerPID}] = BackendRole{sample.RoleApply, sb.Slot}
			}
			for _, pid := range sb.ParallelWorkers {
				r[Backend{sample.Subscriber, pid}] = BackendRole{sample.RoleParallel, sb.Slot}
			}
			for _, pid := range sb.SyncWorkers {
				r[Backend{sample.Subscriber, pid}] = BackendRole{sample.RoleTablesync, sb.Slot}
			}
		}
	}
	return r
}

// pidsOf is the pids of the backends on side in role.
func pidsOf(roles map[Backend]BackendRole, role, side string) map[int]bool {
	pids := map[int]bool{}
	for b, r := range roles {
		if b.Side == side && r.Role == role {
			pids[b.PID] = true
		}
	}
	return pids
}
