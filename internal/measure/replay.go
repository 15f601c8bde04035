package measure

import (
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
)

// What a standby's startup process is doing at a probe (Physical.Replay's
// keys), from its wait event.
const (
	// ReplayOnCPU: no wait event: replaying on a CPU, or runnable.
	ReplayOnCPU = "cpu"
	// ReplayWaitingForWAL: waiting for WAL to arrive (RecoveryWalStream,
	// RecoveryRetrieveRetryInterval): replay has caught up with what was
	// received, it is starved.
	ReplayWaitingForWAL = "waiting-for-wal"
	// ReplayPausedWait: RecoveryPause (pg_wal_replay_pause()).
	ReplayPausedWait = "paused"
	// ReplayDelayWait: RecoveryApplyDelay (recovery_min_apply_delay).
	ReplayDelayWait = "apply-delay"
	// ReplayConflictSnapshot, ReplayConflictLock, ReplayConflictTablespace
	// and ReplayConflictBufferPin: replay waits for a standby query that
	// holds a snapshot, a lock, a tablespace's files or a buffer pin.
	ReplayConflictSnapshot   = "conflict-snapshot"
	ReplayConflictLock       = "conflict-lock"
	ReplayConflictTablespace = "conflict-tablespace"
	ReplayConflictBufferPin  = "conflict-bufferpin"
	// ReplayDataRead: reading data files (DataFileRead, DataFilePrefetch).
	ReplayDataRead = "data-read"
	// ReplayWALRead: reading WAL from pg_wal (WALRead; WalRead on 17+).
	ReplayWALRead = "wal-read"
	// ReplayOtherWait: any other wait event.
	ReplayOtherWait = "other"
)

// ReplayConflictClasses are the classes of a recovery conflict.
var ReplayConflictClasses = []string{ReplayConflictSnapshot, ReplayConflictLock, ReplayConflictTablespace, ReplayConflictBufferPin}

// ReplayClass is the class of a startup process's wait at one probe,
// for the server's major version. Names are compared without regard to
// case (17 renamed WALRead to WalRead); 19 reports a buffer pin under the
// wait type Buffer instead of BufferPin.
func ReplayClass(w sample.Wait, major int) string {
	eq := strings.EqualFold
	in := func(names ...string) bool {
		for _, n := range names {
			if eq(w.Event, n) {
				return true
			}
		}
		return false
	}
	switch {
	case w.Event == "":
		return ReplayOnCPU
	case in("RecoveryWalStream", "RecoveryWalAll", "RecoveryRetrieveRetryInterval"):
		return ReplayWaitingForWAL
	case in("RecoveryPause"):
		return ReplayPausedWait
	case in("RecoveryApplyDelay"):
		return ReplayDelayWait
	case in("RecoveryConflictSnapshot"):
		return ReplayConflictSnapshot
	case in("RecoveryConflictTablespace"):
		return ReplayConflictTablespace
	case eq(w.Type, "BufferPin"), major >= 19 && eq(w.Type, "Buffer") && in("BufferPin"):
		return ReplayConflictBufferPin
	case eq(w.Type, "Lock"):
		return ReplayConflictLock
	case in("DataFileRead", "DataFilePrefetch"):
		return ReplayDataRead
	case in("WALRead"):
		return ReplayWALRead
	}
	return ReplayOtherWait
}

// replayClasses is the share of the startup process's probes in each
// class over the ticks' span.
func replayClasses(rec *sample.Recording, ticks []sample.Tick, pids map[int]bool, srv *sample.Server) map[string]float64 {
	out := map[string]float64{}
	if len(pids) == 0 || srv == nil {
		return out
	}
	from, to := ticks[0].At, ticks[len(ticks)-1].At
	n := 0
	counts := map[string]int{}
	for _, pr := range rec.Probes {
		if pr.Side != string(sample.StandbyNode) || outside(pr.At, from, to) {
			continue
		}
		for _, w := range pr.Waits {
			if pids[w.PID] {
				counts[ReplayClass(w, srv.Major)]++
				n++
			}
		}
	}
	for k, c := range counts {
		out[k] = float64(c) / float64(n)
	}
	return out
}

// ConflictShare is the share of the startup process's probes waiting on
// any recovery conflict.
func (p Physical) ConflictShare() float64 {
	s := 0.0
	for _, c := range ReplayConflictClasses {
		s += p.Replay[c]
	}
	return s
}

// outside says t is before from or after to.
func outside(t, from, to time.Time) bool { return t.Before(from) || t.After(to) }
