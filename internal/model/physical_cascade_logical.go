package model

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/quote"
)

// Logical decoding on a standby (16+): a logical slot on the standby is
// decoded by a walsender there that can decode only WAL the standby has
// replayed; it waits for more (WalSndWaitForWal, the wait event
// WalSenderWaitForWAL, WalSenderWaitForWal from 17, on the condition
// variable replay broadcasts). The standby's replay is then a stage of
// the logical path: with the walsender waiting for WAL while WAL received
// is not replayed, replay limits it. Its slot is invalidated when replay
// removes rows its catalog_xmin needs (rows_removed: the primary's vacuum,
// unless hot_standby_feedback holds it back over a physical slot) or the
// primary's wal_level drops below logical; decoding sessions are then
// cancelled (pg_stat_database_conflicts.confl_active_logicalslot).

// StandbyDecoding is one logical slot on the standby: whether the
// standby's replay limits its decoding, and the causes that bear on it.
type StandbyDecoding struct {
	Slot string `json:"slot"`
	// Active says a walsender decoded it at the window's end.
	Active bool `json:"active"`
	// WaitForWALShare is the share of its walsender's probes waiting for
	// WAL (-1: no probes).
	WaitForWALShare float64 `json:"wait_for_wal_share"`
	// Unreplayed is the WAL the standby received and had not replayed at
	// the window's end (-1 unknown).
	Unreplayed int64 `json:"unreplayed_bytes"`
	// Limit is StageReplay when the standby's replay limits the slot's
	// decoding ("" otherwise).
	Limit StageName `json:"limit,omitempty"`
	// Invalidation is why the slot was invalidated ("" valid).
	Invalidation string `json:"invalidation,omitempty"`
	// Causes are what bears on it: the invalidation, hot_standby_feedback,
	// sessions cancelled by logical slot conflicts.
	Causes []string `json:"causes,omitempty"`
	Text   string   `json:"text"`
}

// StandbyDecodings are the logical slots on p's standby (none before 16,
// or without --standby).
func StandbyDecodings(p measure.Physical) []StandbyDecoding {
	var out []StandbyDecoding
	for _, s := range p.StandbySlots {
		out = append(out, standbyDecoding(p, s))
	}
	return out
}

// standbyDecoding judges one slot.
func standbyDecoding(p measure.Physical, s measure.StandbySlot) StandbyDecoding {
	d := StandbyDecoding{Slot: s.Slot.Name, Active: s.Sender != nil, WaitForWALShare: -1, Unreplayed: p.Unreplayed, Invalidation: s.Slot.Invalidation}
	if s.Walsender.Probes > 0 {
		d.WaitForWALShare = s.Walsender.Share(evWaitForWAL)
	}
	paused := p.Last != nil && p.Last.PauseState == "paused"
	name := quote.Escape(s.Slot.Name)
	var b strings.Builder
	fmt.Fprintf(&b, "logical slot %s on the standby: ", name)
	switch {
	case d.Invalidation != "":
		fmt.Fprintf(&b, "invalidated (%s): it can no longer decode; a new slot is needed", quote.Escape(d.Invalidation))
	case !d.Active:
		b.WriteString("no walsender decodes it")
	case d.WaitForWALShare >= MostProbes && (p.Unreplayed > IdleLag || paused):
		d.Limit = StageReplay
		fmt.Fprintf(&b, "the standby's replay limits its decoding: its walsender waited for WAL in %.0f%% of probes while %s received was not replayed", 100*d.WaitForWALShare, bytesText(max(p.Unreplayed, 0)))
		if paused {
			b.WriteString(" (replay paused)")
		}
		b.WriteString(" (a walsender on a standby decodes only replayed WAL): the physical path's verdict names why replay is behind")
	case d.WaitForWALShare >= MostProbes:
		fmt.Fprintf(&b, "its walsender waited for WAL in %.0f%% of probes with everything received replayed: it keeps up with the standby, which waits on the primary", 100*d.WaitForWALShare)
	case d.WaitForWALShare >= 0:
		fmt.Fprintf(&b, "its walsender waited for WAL in %.0f%% of probes: replay is not what holds it", 100*d.WaitForWALShare)
	default:
		b.WriteString("its walsender was not probed")
	}
	if p.Last != nil && !p.Last.Settings.HotStandbyFeedback {
		d.Causes = append(d.Causes, "hot_standby_feedback is off: the primary's vacuum removes rows the slot's catalog_xmin still needs, and replaying that removal invalidates the slot (rows_removed); turn it on, with a physical slot from the primary to this standby")
	}
	if n := p.Conflicts["active_logicalslot"]; n > 0 {
		d.Causes = append(d.Causes, fmt.Sprintf("%d session(s) cancelled by logical slot conflicts in the window (confl_active_logicalslot)", n))
	}
	for _, c := range d.Causes {
		b.WriteString("; " + c)
	}
	d.Text = b.String()
	return d
}
