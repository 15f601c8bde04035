package audit

import (
	"fmt"
	"strings"
)

// CheckStandbyDelayUnbounded is the ID of standbyDelayUnbounded: its page is docs/checks/standby-delay-unbounded.md.
const CheckStandbyDelayUnbounded CheckID = "standby-delay-unbounded"

// standbyDelayUnbounded: max_standby_streaming_delay or
// max_standby_archive_delay = -1 on a hot standby lets one query stop
// replay for as long as it runs.
var standbyDelayUnbounded = Check{
	ID:       CheckStandbyDelayUnbounded,
	Title:    "a standby query cannot hold replay back without limit",
	Severity: Warning,
	Side:     StandbySide,
	Needs:    []Section{StandbySettings},
	Applies:  standbyApplies,
	Run: func(s Snapshots) []Finding {
		sb := s.Standby
		if sb.Settings["hot_standby"].Value != "on" {
			return nil // no queries on the standby: nothing conflicts with replay
		}
		var out []Finding
		for _, c := range []struct{ name, reads string }{
			{"max_standby_streaming_delay", "WAL received by streaming"},
			{"max_standby_archive_delay", "WAL read from the archive or pg_wal (restore_command, or replay after a restart)"},
		} {
			v, ok := sb.Settings.Int(c.name)
			if !ok || v != -1 {
				continue
			}
			here := ""
			if c.name == "max_standby_streaming_delay" && sb.Receiver != nil && sb.Receiver.Status == "streaming" {
				here = " This standby streams now, so every record it receives can wait behind such a query."
			}
			if coupled := remoteApplyCoupled(s); coupled != "" {
				here += " " + coupled
			}
			feedback := "hot_standby_feedback is off, so a VACUUM on the primary that removes rows a standby query can still see is such a conflict."
			if sb.Settings["hot_standby_feedback"].Value == "on" {
				feedback = "hot_standby_feedback is on, which avoids most snapshot conflicts; lock and buffer-pin conflicts remain."
			}
			out = append(out, Finding{
				Objects: []string{"setting " + c.name + " (standby)"},
				Found:   fmt.Sprintf("%s = -1 on the standby (hot_standby on): replay of %s waits for conflicting standby queries without limit.", c.name, c.reads),
				Why: strings.TrimSpace("A standby query that conflicts with replay (it holds a snapshot that a record's cleanup would break, a lock " +
					"a record needs, or a buffer pin) stops the startup process until the query ends: the standby falls behind for as long " +
					"as the query runs, and pg_stat_database_conflicts never counts it, since nothing is cancelled. " + feedback + here),
				Fix: fmt.Sprintf("Bound the wait on the standby: set %s to 30s (the default; longer if standby queries must run longer), "+
					"and reload it. A query that holds replay back longer is then cancelled.", c.name),
				Run: alterSystem(onStandby, c.name, "30s", false),
			})
		}
		return out
	},
}

// remoteApplyCoupled says that the primary's commits wait for this
// standby's replay (synchronous_commit = remote_apply, the standby named
// in synchronous_standby_names), or "".
func remoteApplyCoupled(s Snapshots) string {
	if s.Primary == nil || s.Primary.Settings["synchronous_commit"].Value != "remote_apply" {
		return ""
	}
	if _, _, names := syncStandbyNames(s.Primary.Settings["synchronous_standby_names"].Value); !namesStandby(names, s.Standby.ApplicationName()) {
		return ""
	}
	return "The primary's commits wait for this standby's replay (synchronous_commit = remote_apply, and synchronous_standby_names names it): while replay stands still, so do they."
}
