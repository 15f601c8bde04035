package model

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/units"
)

// A cascade: the primary feeds the observed standby, which feeds a
// cascaded standby from a walsender of its own. A cascading walsender
// sends what its standby has received and flushed (not only what it has
// replayed: GetStandbyFlushRecPtr, the later of the two), so the cascaded
// standby's lag behind the real primary is two hops: the WAL the observed
// standby has not received yet (at the primary's walsender, or on the
// first link), then what the cascaded standby has not replayed of what
// the observed standby received (at the standby's walsender, on the
// second link, or at the cascaded standby's startup process). The
// observed standby's own replay is in neither.

// CascadeHop is one hop of a cascade: its WAL behind at the window's end,
// bytes and the time the primary took to write them (StageLag's model),
// split by stage, and the stage that holds most of it.
type CascadeHop struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Bytes is the WAL waiting in this hop, Seconds its time at the
	// primary's WAL rate (unknown when the primary writes under
	// StillRate or is not observed).
	Bytes   int64             `json:"bytes"`
	Seconds Optional[float64] `json:"seconds"`
	// Stages split Bytes: not yet sent (walsender), in flight (link),
	// received not replayed (replay: the cascaded standby's, second hop
	// only).
	Stages []StageLag `json:"stages"`
	// Limit is the hop's limiting stage: on the first hop the one the
	// path's verdict names when it is one of that hop's, else the stage
	// holding the most of Bytes ("" when nothing waits).
	Limit StageName `json:"limit,omitempty"`
}

// Cascade is a cascaded standby's lag behind the real primary, hop by hop,
// and which hop limits it.
type Cascade struct {
	// Standby is the cascaded standby (its application_name on the
	// observed standby), Via the observed standby that feeds it.
	Standby string `json:"standby"`
	Via     string `json:"via"`
	// BehindPrimary is the WAL it has not replayed of what the primary
	// wrote (null: the primary not observed, the first hop unknown);
	// Seconds that at the primary's WAL rate.
	BehindPrimary Optional[int64]   `json:"behind_primary_bytes"`
	Seconds       Optional[float64] `json:"seconds"`
	// Hops are primary -> Via (when the primary is observed), then Via ->
	// Standby.
	Hops []CascadeHop `json:"hops"`
	// LimitHop is the index in Hops of the hop holding the most of the
	// lag (-1: every hop within IdleLag, nothing limits).
	LimitHop int `json:"limit_hop"`
	// ReplayLagS is replay_lag of its row on the observed standby (the
	// time columns relative to the observed standby, not the primary).
	ReplayLagS Optional[float64] `json:"replay_lag_s"`
	// ReplayedBps is its replay rate, bytes/s over the ticks that listed
	// it.
	ReplayedBps float64 `json:"replayed_bytes_per_s"`
	Text        string  `json:"text"`
}

// Cascades are the cascaded standbys the observed standby of p feeds, each
// against the real primary (model: the hops above; the time of a hop's
// WAL is its bytes over the primary's WAL rate in the window, as
// PhysicalLag's). limit is the stage the path's verdict names (its
// Limit): when it is one of the first hop's (the primary's walsender, the
// link, the WAL receiver), it is that hop's limit, measured from its
// processes; bytes alone would name the walsender of a link-bound path,
// whose WAL waits unsent behind a full socket. Otherwise, and on the
// second hop (whose processes are not sampled), the stage holding the
// most bytes limits.
func Cascades(p measure.Physical, limit StageName) []Cascade {
	var out []Cascade
	for _, d := range p.Downstreams {
		out = append(out, cascadeOf(p, d, limit))
	}
	return out
}

// cascadeOf builds one cascaded standby's hops.
func cascadeOf(p measure.Physical, d measure.Downstream, limit StageName) Cascade {
	c := Cascade{Standby: d.Name, Via: p.Standby, LimitHop: -1, ReplayedBps: d.Replayed}
	if d.Sender.ReplayLagS != nil {
		c.ReplayLagS = Known(*d.Sender.ReplayLagS)
	}
	seconds := func(b int64) Optional[float64] {
		switch {
		case b == 0:
			return Known(0.0)
		case p.HasPrimary && p.Generated >= StillRate:
			return Known(float64(b) / p.Generated)
		}
		return Optional[float64]{}
	}
	hop := func(from, to string, stages ...StageLag) CascadeHop {
		h := CascadeHop{From: from, To: to, Stages: []StageLag{}}
		var most int64
		for _, s := range stages {
			s.Seconds = seconds(s.Bytes)
			h.Stages = append(h.Stages, s)
			h.Bytes += s.Bytes
			if s.Bytes > most {
				most, h.Limit = s.Bytes, s.Stage
			}
		}
		h.Seconds = seconds(h.Bytes)
		return h
	}
	if p.HasPrimary && p.Unsent >= 0 && p.InFlight >= 0 {
		h := hop("primary", p.Standby, StageLag{Stage: StageWalsender, Bytes: p.Unsent}, StageLag{Stage: StageLink, Bytes: p.InFlight})
		if h.Bytes > 0 && (limit == StageWalsender || limit == StageLink || limit == StageReceiver) {
			h.Limit = limit
		}
		c.Hops = append(c.Hops, h)
	}
	s := d.Sender
	c.Hops = append(c.Hops, hop(p.Standby, d.Name,
		StageLag{Stage: StageWalsender, Bytes: max(d.Received.Sub(s.Sent), 0)},
		StageLag{Stage: StageLink, Bytes: max(s.Sent.Sub(s.Flush), 0)},
		StageLag{Stage: StageReplay, Bytes: max(s.Flush.Sub(s.Replay), 0)}))
	var total int64
	for i, h := range c.Hops {
		total += h.Bytes
		if h.Bytes > IdleLag && (c.LimitHop < 0 || h.Bytes > c.Hops[c.LimitHop].Bytes) {
			c.LimitHop = i
		}
	}
	if len(c.Hops) == 2 {
		c.BehindPrimary, c.Seconds = Known(total), seconds(total)
	}
	c.Text = c.text()
	return c
}

// hopStageNoun says where a hop's stage's WAL waits.
var hopStageNoun = map[StageName]string{StageWalsender: "not yet sent", StageLink: "in flight", StageReplay: "received not replayed"}

// text is the cascade in a sentence: its lag behind the primary, each hop
// and the hop that limits.
func (c Cascade) text() string {
	name := func(n string) string { return quote.Escape(n) }
	var b strings.Builder
	fmt.Fprintf(&b, "cascaded standby %s (fed by %s): ", name(c.Standby), name(c.Via))
	if total, ok := c.BehindPrimary.Get(); ok {
		b.WriteString(bytesText(total) + " behind the primary")
		if s, ok := c.Seconds.Get(); ok && total > 0 {
			b.WriteString(" (about " + secs(s) + ")")
		}
	} else {
		b.WriteString("lag behind the primary not known (no --primary)")
	}
	for _, h := range c.Hops {
		fmt.Fprintf(&b, "; %s -> %s %s", name(h.From), name(h.To), bytesText(h.Bytes))
		if s, ok := h.Seconds.Get(); ok && h.Bytes > 0 {
			b.WriteString(" (" + secs(s) + ")")
		}
		var parts []string
		for _, s := range h.Stages {
			if s.Bytes > 0 {
				parts = append(parts, bytesText(s.Bytes)+" "+hopStageNoun[s.Stage])
			}
		}
		if len(parts) > 0 {
			b.WriteString(": " + strings.Join(parts, ", "))
		}
	}
	if c.LimitHop < 0 {
		fmt.Fprintf(&b, "; no hop holds more than %s: the cascade keeps up", bytesText(IdleLag))
	} else {
		h := c.Hops[c.LimitHop]
		fmt.Fprintf(&b, "; the %s -> %s hop limits, at stage %s (%s)", name(h.From), name(h.To), h.Limit, c.hopStageWhere(c.LimitHop))
	}
	if l, ok := c.ReplayLagS.Get(); ok {
		fmt.Fprintf(&b, "; replay_lag %s relative to %s", secs(l), name(c.Via))
	}
	if c.ReplayedBps > 0 {
		b.WriteString("; replaying " + units.FormatRate(c.ReplayedBps))
	}
	return b.String()
}

// hopStageWhere says which process or link hop i's limiting stage is, and
// where to look further.
func (c Cascade) hopStageWhere(i int) string {
	h := c.Hops[i]
	switch {
	case i == 0 && len(c.Hops) == 2:
		return fmt.Sprintf("the path of %s above names its cause", quote.Escape(c.Via))
	case h.Limit == StageReplay:
		return fmt.Sprintf("the startup process of %s: diagnose --standby on it names why", quote.Escape(c.Standby))
	case h.Limit == StageLink:
		return fmt.Sprintf("the link from %s, or the WAL receiver of %s: diagnose --standby on it tells them apart", quote.Escape(c.Via), quote.Escape(c.Standby))
	}
	return fmt.Sprintf("the walsender of %s", quote.Escape(c.Via))
}
