package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/quote"
)

// configStall says why nothing can move whatever the processes do (""
// when the path is configured to run), and what fills the stop when a
// variant's texts say more than the general stop (fill, "" none).
func configStall(in Input) (cause, fill string) {
	switch {
	case !in.SlotFound:
		return "the slot does not exist", ""
	case in.Invalidation != "" && in.Invalidation != "invalidated":
		return lostCause(in.Invalidation), ""
	case in.WALStatus == "lost" || in.Invalidation == "invalidated":
		return lostCause(""), ""
	case in.HasSubscriber && in.Subscription == "":
		if !in.SlotActive {
			return "no subscription on the observed subscriber uses this slot, and no consumer is connected", ""
		}
		return "", ""
	case in.HasSubscriber && !in.SubEnabled && in.ApplyErrorCount > 0:
		return disabledByError(in), FillDisabledByError
	case in.HasSubscriber && !in.SubEnabled:
		return fmt.Sprintf("subscription %s is disabled", quote.Id(in.Subscription)), FillDisabled
	case in.ApplyErrors > 0:
		return fmt.Sprintf("the apply worker of %s failed %d time(s) during the window (apply_error_count): read the subscriber's log for the error", quote.Id(in.Subscription), in.ApplyErrors), ""
	case in.HasSubscriber && !in.ApplyWorker:
		return fmt.Sprintf("subscription %s is enabled but has no apply worker (crashing or restarting; read the subscriber's log)", quote.Id(in.Subscription)), ""
	case !in.SlotActive && in.Summary.Progress() <= 0 && !(in.ApplyWorker && len(in.Blockers) > 0):
		// An apply worker held on a lock sends no reply, and after
		// wal_sender_timeout its walsender exits: the lock is still the
		// cause (the rules below name its holder), not a missing consumer
		// (18.4, a lock held 90 s: its last 30 s were called stalled).
		return "no walsender serves the slot (active = false): its consumer is not connected", ""
	}
	return "", ""
}

// lostCause names why a slot was invalidated, from 17's
// invalidation_reason ("" when the server does not say).
func lostCause(reason string) string {
	const fix = "; recreate the slot (for a subscription: drop and re-create the subscription, or point its slot_name option at a new slot) and resynchronise the tables"
	switch reason {
	case "wal_removed":
		return "the slot is invalidated (wal_removed): WAL it still needed was removed, past max_slot_wal_keep_size" + fix
	case "rows_removed":
		return "the slot is invalidated (rows_removed): catalog rows it needed were removed (on a standby: a conflict with recovery; hot_standby_feedback with a physical slot prevents it)" + fix
	case "wal_level_insufficient":
		return "the slot is invalidated (wal_level_insufficient): wal_level on the primary was lowered below logical; set it back to logical" + fix
	case "idle_timeout":
		return "the slot is invalidated (idle_timeout): it stayed inactive longer than idle_replication_slot_timeout" + fix
	case "":
		return "the slot is lost or invalidated and the server does not say why (16 and older: wal_status = lost means WAL it needed was removed; 16's conflicting = true also covers conflicts with recovery)" + fix
	default:
		return fmt.Sprintf("the slot is invalidated (%s)", reason) + fix
	}
}

// nothingMoves reports a backlog that neither sending nor confirming
// advanced during the window while WAL was generated.
func nothingMoves(in Input) bool {
	s := in.Summary
	return s.Progress() <= 0 && s.Generated > 0 && in.MedianLag > CaughtUpLag
}

// FrozenAfter is how long an apply worker that waits for data must have
// received nothing, while the walsender was blocked writing to it, for the
// connection between them to count as frozen.
const FrozenAfter = 3.0

// frozenLink names a replication connection that carries nothing: the
// walsender is blocked writing to its socket, the apply worker waits for
// data, and the worker received no message (not even a keepalive) for the
// whole window while WAL was generated. A slow link still delivers (the
// receipt time moves); an apply worker that holds up the socket itself
// (a lock, a busy CPU) is not waiting for data.
func frozenLink(in Input, ws, ap Stage) (Verdict, bool) {
	s := in.Summary
	if !in.HasSubscriber || in.SilentS < FrozenAfter || s.Generated <= 0 || s.Consumed > 0 ||
		!ws.Known() || ws.Blocked < LinkBlocked || !ap.Known() || ap.Starved < MostProbes {
		return Verdict{}, false
	}
	v := newVerdict(Stalled, confidence(margin{"walsender blocked over LinkBlocked", ws.Blocked - LinkBlocked}, margin{"apply worker waiting for data over MostProbes", ap.Starved - MostProbes}).capped(capFrozenLink))
	v.d.basis, v.d.fill = basisFrozen, FillFrozen
	return v, true
}
