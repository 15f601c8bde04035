package audit

import "fmt"

// CheckStandbyStatusInterval is the ID of standbyStatusInterval: its page is docs/checks/standby-status-interval.md.
const CheckStandbyStatusInterval CheckID = "standby-status-interval"

// statusIntervalDefault is wal_receiver_status_interval's default, in ms.
const statusIntervalDefault = 10_000

// standbyStatusInterval: wal_receiver_status_interval = 0 (no status
// updates) or above its default leaves the primary's view of the standby
// stale: pg_stat_replication's positions and lag columns, and the physical
// slot's restart_lsn.
var standbyStatusInterval = Check{
	ID:       CheckStandbyStatusInterval,
	Title:    "the standby reports its positions often (wal_receiver_status_interval)",
	Severity: Warning,
	Side:     StandbySide,
	Needs:    []Section{StandbySettings},
	Applies:  standbyApplies,
	Run: func(s Snapshots) []Finding {
		ms, ok := millis(s.Standby.Settings, "wal_receiver_status_interval")
		if !ok || ms > 0 && ms <= statusIntervalDefault {
			return nil
		}
		asked := "only when the primary asks, every half wal_sender_timeout"
		if p := s.Primary; p != nil {
			if t, ok := millis(p.Settings, "wal_sender_timeout"); ok && t > 0 {
				asked = fmt.Sprintf("only when the primary asks: every %s (half its wal_sender_timeout, %s)", showMillis(t/2), showMillis(t))
			} else if ok {
				asked = "never: the primary's wal_sender_timeout is 0, so it never asks"
			}
		}
		f := Finding{
			Objects:  []string{"setting wal_receiver_status_interval (standby)"},
			Severity: Info,
			Found: fmt.Sprintf("wal_receiver_status_interval = %s on the standby (the default is 10s): it reports its positions to the primary when it writes or flushes WAL, and otherwise only every %s.",
				showMillis(ms), showMillis(ms)),
			Why: fmt.Sprintf("While the standby replays WAL it already has (a backlog, a stall that clears), nothing new is written or flushed: "+
				"the primary's pg_stat_replication (replay position, replay_lag, reply_time) can be up to %s old, and lag read "+
				"there, by lagscope or a monitoring tool, is that stale.", showMillis(ms)),
			Fix: "Set wal_receiver_status_interval to 10s (the default) on the standby and reload it.",
			Run: alterSystem(onStandby, "wal_receiver_status_interval", "10s", false),
		}
		if ms == 0 {
			f.Severity = Warning
			f.Found = "wal_receiver_status_interval = 0 on the standby: its status updates are disabled; the primary hears its positions " + asked + "."
			f.Why = "The primary's pg_stat_replication (write, flush and replay positions, the lag columns, reply_time) is only as recent " +
				"as the last answer: lag read there is stale by as much, and the physical slot's restart_lsn advances only as often " +
				"(the WAL it retains grows in between). hot_standby_feedback is not sent on a schedule either."
		}
		return []Finding{f}
	},
}
