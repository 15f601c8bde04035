package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/pgversion"
)

// CheckStandbyRecoveryPrefetch is the ID of standbyRecoveryPrefetch: its page is docs/checks/standby-recovery-prefetch.md.
const CheckStandbyRecoveryPrefetch CheckID = "standby-recovery-prefetch"

// standbyRecoveryPrefetch: recovery_prefetch = off makes replay read each
// block it misses in shared buffers when it applies the record.
var standbyRecoveryPrefetch = Check{
	ID:          CheckStandbyRecoveryPrefetch,
	Title:       "replay prefetches the blocks it will read (recovery_prefetch)",
	Severity:    Info,
	MinVersion:  pgversion.RecoveryPrefetch.Since,
	VersionNote: "recovery_prefetch is new in 15; before it replay reads each block when it applies the record",
	Side:        StandbySide,
	Needs:       []Section{StandbySettings},
	Applies:     standbyApplies,
	Run: func(s Snapshots) []Finding {
		if v := s.Standby.Settings["recovery_prefetch"].Value; v != "off" {
			return nil
		}
		return []Finding{{
			Objects: []string{"setting recovery_prefetch (standby)"},
			Found:   "recovery_prefetch = off on the standby: the startup process reads each data block a WAL record touches only when it applies the record.",
			Why: fmt.Sprintf("Replay is one process: with prefetching off, each block not in shared buffers is a read it waits for, "+
				"one at a time. With try (the default) it looks ahead in the WAL and issues up to maintenance_io_concurrency reads "+
				"before it needs them, which matters when replay waits on reads (lagscope diagnose names that replay-read-io); "+
				"where the system cannot prefetch (no posix_fadvise) try does nothing. pg_stat_recovery_prefetch counts what it did (%d+).",
				pgversion.RecoveryPrefetch.Since),
			Fix: "Set recovery_prefetch to try on the standby and reload it.",
			Run: alterSystem(onStandby, "recovery_prefetch", "try", false),
		}}
	},
}
