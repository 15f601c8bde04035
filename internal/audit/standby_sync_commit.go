package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/units"
)

// CheckStandbySyncCommit is the ID of standbySyncCommit: its page is docs/checks/standby-sync-commit.md.
const CheckStandbySyncCommit CheckID = "standby-sync-commit"

// standbySyncCommit: the primary's synchronous_standby_names names this
// standby and synchronous_commit makes commits wait for it: remote_apply
// for its replay, on for its flush, remote_write for its write.
var standbySyncCommit = Check{
	ID:       CheckStandbySyncCommit,
	Title:    "the primary's commits and this standby: synchronous replication",
	Severity: Warning,
	Side:     StandbySide,
	Needs:    []Section{PrimarySettings},
	Applies:  standbyApplies,
	Run: func(s Snapshots) []Finding {
		p, app := s.Primary, s.Standby.ApplicationName()
		list := p.Settings["synchronous_standby_names"].Value
		method, num, names := syncStandbyNames(list)
		w, _ := s.feed()
		state := ""
		if w != nil {
			state = w.SyncState
		}
		if !namesStandby(names, app) && state != "sync" && state != "quorum" {
			return nil
		}
		commit := p.Settings["synchronous_commit"].Value
		var waits string
		var lag *float64
		switch commit {
		case "remote_apply":
			waits, lag = "until this standby has replayed it", nil
			if w != nil {
				lag = w.ReplayLag
			}
		case "on":
			waits = "until this standby has flushed its WAL to disk"
			if w != nil {
				lag = w.FlushLag
			}
		case "remote_write":
			waits = "until this standby has written its WAL (not flushed)"
			if w != nil {
				lag = w.WriteLag
			}
		default:
			return nil // off or local: commits do not wait for a standby
		}
		role := fmt.Sprintf(" (%s %d of its list)", method, num)
		switch state {
		case "sync", "quorum":
			role = fmt.Sprintf(", a synchronous standby now (sync_state %s)", state)
		case "potential":
			role = " as a potential synchronous standby (sync_state potential; commits wait for it once a standby before it is gone)"
		}
		found := fmt.Sprintf("synchronous_standby_names = '%s' on the primary names this standby (application_name %s)%s, with synchronous_commit = %s: each commit there waits %s.",
			list, id(app), role, commit, waits)
		if lag != nil {
			found += fmt.Sprintf(" The walsender reports %s now.", lagColumn(commit, *lag))
		}
		f := Finding{
			Objects:  []string{"setting synchronous_standby_names (primary)", "setting synchronous_commit (primary)"},
			Severity: Info,
			Found:    found,
			Why: "The primary's commit latency includes this standby's: the round trip over the link and its WAL flush; " +
				"if it stops and no other standby can take its place in the list, commits on the primary wait until it returns. " +
				"synchronous_commit is the value this role's session sees: other roles, databases or sessions may set their own.",
			Fix: "The coupling is a durability choice: to loosen it, take the standby out of synchronous_standby_names on the primary " +
				"(lagscope does not print a new list: which standbys must confirm a commit is yours to decide).",
		}
		if commit == "remote_apply" {
			f.Severity = Warning
			f.Why = "Replay lag is commit latency on the primary: a standby query holding replay back (max_standby_streaming_delay), " +
				"recovery_min_apply_delay, or a startup process at its limit stalls the primary's commits; if the standby stops " +
				"and no other standby can take its place, they wait until it returns. synchronous_commit is the value this " +
				"role's session sees: other roles, databases or sessions may set their own."
			f.Fix = "Unless reads on the standby must see each commit at once, set synchronous_commit to on on the primary and reload it: " +
				"commits then wait for the standby's flush, not its replay, and are as durable."
			run := alterSystem(onPrimary, "synchronous_commit", "on", false)
			run[0] = run[0].WithNote("a read on the standby right after a commit may then not see it yet")
			f.Run = run
		}
		return []Finding{f}
	},
}

// lagColumn says the walsender's lag column that synchronous_commit = commit
// waits on.
func lagColumn(commit string, lag float64) string {
	col := map[string]string{"remote_apply": "replay_lag", "on": "flush_lag", "remote_write": "write_lag"}[commit]
	return fmt.Sprintf("%s %s", col, units.FormatSeconds(lag))
}
