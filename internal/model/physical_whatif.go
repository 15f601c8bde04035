package model

import (
	"fmt"
	"slices"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/units"
)

// A physical path's "what if": each remedy of a physical verdict that
// changes how fast the standby catches up is a row of PhysicalRemedies,
// named by the advice's own key (the what-if line and the advice line are
// one remedy), with the model its figure rests on. They are a table of
// their own rather than rows of Remedies: a logical remedy multiplies one
// stage's capacity on a path that drains (Plan needs a drain), while most
// physical remedies end a hold (a pause, an apply delay, a conflicting
// query) on a path that drains nothing, and their figure is replay's
// capacity when not held, which the window shows only where replay ran
// part of it. docs/whatif.md, "Physical standbys".

// PhysicalRemedy is one change to a physical path an operator can make,
// the verdicts it answers, and its prediction.
type PhysicalRemedy struct {
	// Change names the remedy (the advice's key).
	Change RemedyID
	// Remedy says what is changed, in the operator's words.
	Remedy string
	// Verdicts are the verdicts the remedy answers.
	Verdicts []VerdictName
	// predict returns the prediction for this path (ok false: the remedy
	// does not apply to it).
	predict func(in PhysicalInput, v Verdict) (Prediction, bool)
}

// minFree is the least share of the window replay must have run unheld
// (its probes not paused, delayed or in a conflict) for the window to say
// how fast it replays when not held: a tenth of a 10 s window is 1 s of
// replay.
const minFree = 0.10

// PhysicalRemedies lists the physical path's remedies the planner knows,
// in the order a report shows them.
var PhysicalRemedies = []PhysicalRemedy{
	{Change: KeyResumeReplay, Remedy: "replay resumed (pg_wal_replay_resume())", Verdicts: []VerdictName{ReplayPaused},
		predict: func(in PhysicalInput, v Verdict) (Prediction, bool) {
			return heldCatchUp(in), true
		}},
	{Change: KeyRemoveApplyDelay, Remedy: "recovery_min_apply_delay removed (set to 0)", Verdicts: []VerdictName{ReplayDelayed},
		predict: func(in PhysicalInput, v Verdict) (Prediction, bool) {
			pr := heldCatchUp(in)
			if pr.NotPredicted == "" && in.Path.Generated >= StillRate {
				pr.Model += fmt.Sprintf("; with a shorter delay D instead, the standby stays about D x %s behind once caught up", units.FormatRate(in.Path.Generated))
			}
			return pr, true
		}},
	{Change: KeyCancelConflictHolder, Remedy: "the conflicting query gone (cancelled, or ended)", Verdicts: []VerdictName{ReplayConflict},
		predict: func(in PhysicalInput, v Verdict) (Prediction, bool) {
			pr := heldCatchUp(in)
			if pr.NotPredicted == "" {
				pr.Model += "; no other standby query conflicting meanwhile"
			}
			return pr, true
		}},
	{Change: KeyBoundStandbyDelay, Remedy: "max_standby_streaming_delay bounded (30s instead of -1)", Verdicts: []VerdictName{ReplayConflict},
		predict: func(in PhysicalInput, v Verdict) (Prediction, bool) {
			p := in.Path
			if p.Last == nil || p.Last.Settings.MaxStreamingDelayMS >= 0 {
				return Prediction{}, false
			}
			return Prediction{NotPredicted: boundNotNow}, true
		}},
	{Change: KeyLinkTwice, Remedy: "a link twice as fast", Verdicts: []VerdictName{Network},
		predict: physLinkTwice},
	{Change: KeyWALCompression, Remedy: "wal_compression on the primary (lz4, or pglz before 15)", Verdicts: []VerdictName{Network},
		predict: physWALCompression},
	{Change: KeyReplayPrefetch, Remedy: "a higher maintenance_io_concurrency with recovery_prefetch on (15+)", Verdicts: []VerdictName{ReplayReadIO},
		predict: func(in PhysicalInput, v Verdict) (Prediction, bool) {
			return Prediction{NotPredicted: readBoundWhy(in, v, true)}, true
		}},
	{Change: KeyStandbyMemory, Remedy: "more memory for the standby (shared_buffers, page cache)", Verdicts: []VerdictName{ReplayReadIO},
		predict: func(in PhysicalInput, v Verdict) (Prediction, bool) {
			return Prediction{NotPredicted: readBoundWhy(in, v, false)}, true
		}},
}

// boundNotNow is why bound-standby-delay has no figure for the hold it
// is seen in: the startup process reads its settings between records, not
// while it waits on a conflict. In the lab (lab whatif, 18.4, 2026-12-06:
// replay-cpu's backlog held by a standby snapshot under -1, then 30s set
// and reloaded with the conflicting WAL over a minute old) replay moved
// 0 bytes in the 72 s after the reload.
const boundNotNow = "no figure for this hold: the startup process reads its settings between records, not while it waits on a conflict, so a reload does not end the wait under way (in the lab, replay stayed held 72 s after 30s was set and reloaded); this hold ends when the query does (cancel-conflict-holder), and the bound then holds a later conflict at most 30 s, none for WAL that arrived more than 30 s ago"

// PlanPhysical predicts each physical remedy that applies to the verdict,
// in PhysicalRemedies' order (nil: none applies).
func PlanPhysical(in PhysicalInput, v Verdict) []Prediction {
	var out []Prediction
	for _, r := range PhysicalRemedies {
		if !slices.Contains(r.Verdicts, v.Name) {
			continue
		}
		pr, ok := r.predict(in, v)
		if !ok {
			continue
		}
		pr.Change, pr.Remedy = string(r.Change), r.Remedy
		out = append(out, pr)
	}
	return out
}

// heldShare is the share of the startup process's probes held on purpose
// or by a query: paused, waiting out recovery_min_apply_delay, or in a
// recovery conflict.
func heldShare(p measure.Physical) float64 {
	return p.Replay[measure.ReplayPausedWait] + p.Replay[measure.ReplayDelayWait] + p.ConflictShare()
}

// ReplayCapacity is how fast replay goes when nothing holds it, from the
// window: the WAL it replayed over the share of the window it was not held
// (paused, delayed, in a conflict). When it waited for WAL in more than
// Idle of that time, the rate is a lower bound (bound true: it kept up
// with what arrived); otherwise it is its capacity. 0 with why when the
// window does not show it: replay held nearly all of it (over 1 -
// minFree), or replaying under StillRate.
func ReplayCapacity(in PhysicalInput) (rate float64, bound bool, model, why string) {
	p := in.Path
	held := min(heldShare(p), 1)
	free := 1 - held
	if p.Replayed < StillRate || free < minFree {
		return 0, false, "", fmt.Sprintf("replay was held in %s of the startup process's probes and replayed %s over the window: how fast it replays when not held was not measured (its CPU share while held, %s, says nothing of it); diagnose again once the change is made: the catch-up forecast of that window is the figure",
			pct(held), units.FormatRate(p.Replayed), pct(max(in.Path.Startup.CPUShare, 0)))
	}
	rate = p.Replayed / free
	waited := p.Replay[measure.ReplayWaitingForWAL] / free
	if waited >= Idle {
		return rate, true, fmt.Sprintf("replay ran at %s in the %s of the window it was not held, waiting for WAL %s of that time: it replays at least that fast", units.FormatRate(rate), pct(free), pct(waited)), ""
	}
	return rate, false, fmt.Sprintf("replay ran at %s in the %s of the window it was not held, working all that time: its capacity", units.FormatRate(rate), pct(free)), ""
}

// heldCatchUp is the catch-up once a hold ends: the WAL behind over
// replay's capacity less the WAL rate.
func heldCatchUp(in PhysicalInput) Prediction {
	p := in.Path
	behind := p.Behind()
	if behind < 0 {
		return Prediction{NotPredicted: "the WAL behind is not known (neither end's positions were read twice)"}
	}
	rate, bound, how, why := ReplayCapacity(in)
	if rate <= 0 {
		return Prediction{NotPredicted: why}
	}
	pr := Prediction{Drain: rate, AtLeast: bound, LimitedBy: StageReplay}
	if p.Replayed >= StillRate {
		pr.Speedup = rate / p.Replayed
	}
	net := rate - p.Generated
	switch {
	case behind <= IdleLag:
		pr.CatchUpS = 0
	case net <= StillRate && bound:
		return Prediction{NotPredicted: how + fmt.Sprintf(", which is not faster than the primary writes (%s): that bound says nothing of a catch-up", units.FormatRate(p.Generated))}
	case net <= StillRate:
		pr.CatchUpS = -1
	default:
		pr.CatchUpS = float64(behind) / net
	}
	pr.Model = fmt.Sprintf("%s behind / (replay's rate when not held - the WAL rate, %s): %s", bytesText(behind), units.FormatRate(p.Generated), how)
	return pr
}

// physLinkTwice is link=2x on a physical path whose link limits: the
// link carried what the standby received; twice as fast it carries twice
// that, capped by the startup process's and the walsender's capacity
// (today's rate over their work, the stage model of docs/whatif.md).
func physLinkTwice(in PhysicalInput, v Verdict) (Prediction, bool) {
	p := in.Path
	if v.Limit != StageLink || p.Received < StillRate {
		return Prediction{}, false
	}
	pr := Prediction{Factor: 2, Drain: 2 * p.Received, LimitedBy: StageLink,
		Model: fmt.Sprintf("the link carried what the standby received, %s; twice as fast, it carries twice that", units.FormatRate(p.Received))}
	for _, c := range []struct {
		name StageName
		rate float64
	}{{StageReplay, p.Replayed}, {StageWalsender, p.Sent}} {
		s := Stages(v.Stages).Of(c.name)
		if !s.Known() || s.Work() <= 0 || c.rate < StillRate {
			continue
		}
		if capy := c.rate / s.Work(); capy < pr.Drain {
			pr.Drain, pr.LimitedBy = capy, c.name
			pr.Model += fmt.Sprintf("; capped by the %s, %s busy today at %s: it saturates at that rate / its work", processNoun(c.name), pct(s.Utilisation), units.FormatRate(c.rate))
			if s.Utilisation < minUtil {
				pr.Model += " (a rough bound: so idle a stage says little about its capacity)"
			}
		}
	}
	pr.Speedup = pr.Drain / p.Received
	pr.CatchUpS = drainCatchUp(pr.Drain, p)
	return pr, true
}

// readBoundWhy says why read-bound replay's remedies get no figure, what
// the window does show (the ceiling: replay with none of its read waits),
// and what to measure for one.
func readBoundWhy(in PhysicalInput, v Verdict, prefetch bool) string {
	p := in.Path
	reads := p.Replay[measure.ReplayDataRead] + p.Replay[measure.ReplayWALRead]
	s := "how many of replay's reads more I/O depth or memory would spare is not measured"
	st := Stages(v.Stages).Of(StageReplay)
	if st.Known() && p.Replayed >= StillRate && st.Utilisation-reads > 0 {
		s += fmt.Sprintf("; with none of its read waits (%s of its probes) replay would run at most %s (today %s over its %s of work less the reads)",
			pct(reads), units.FormatRate(p.Replayed/(st.Utilisation-reads)), units.FormatRate(p.Replayed), pct(st.Utilisation))
	}
	if prefetch {
		if f := p.Prefetch; f != nil && f.Prefetch+f.Hit > 0 {
			s += fmt.Sprintf("; the prefetcher issued %d reads and found %d blocks already cached in the window (pg_stat_recovery_prefetch)", f.Prefetch, f.Hit)
		}
		s += "; a figure needs the I/O depth it reached against maintenance_io_concurrency (pg_stat_recovery_prefetch.io_depth) and the time per read (pg_stat_io.read_time with track_io_timing)"
		return s
	}
	return s + "; a figure needs the startup process's reads and hits (pg_stat_io, 16+) with the size of the data it reads against the standby's memory"
}

// fpiMaxBytes is the most one full-page image adds to the WAL: a page.
const fpiMaxBytes = 8192

// physWALCompression predicts wal_compression on a link-bound path from
// the full-page images in the WAL the primary wrote over the window
// (pg_stat_wal): compression shrinks those alone. None: no gain, the link
// carries what it carries today (1x). Some: no figure, as what
// compression saves of them is not measured; the bound, at most 1 / (1 -
// their share) as fast, with the share itself at most one page per image.
func physWALCompression(in PhysicalInput, _ Verdict) (Prediction, bool) {
	p := in.Path
	switch {
	case p.WALBytes < 0:
		return Prediction{NotPredicted: "its gain is the full-page images' share of the WAL the link carries times what compression saves of them; the window did not read the primary's pg_stat_wal twice (--primary not given, or PostgreSQL 13): measure both over a minute of the load (SELECT wal_fpi, wal_bytes FROM pg_stat_wal, read twice), an image being at most 8 kB, and the link then carries about (1 - that share x the saving) of the WAL it carries today"}, true
	case p.WALBytes == 0 || p.Received < StillRate:
		return Prediction{NotPredicted: fmt.Sprintf("the primary wrote %s of WAL and the standby received %s over the window: too little to say what compression would save", bytesText(p.WALBytes), units.FormatRate(p.Received))}, true
	case p.FPI > 0:
		share := min(1, float64(p.FPI)*fpiMaxBytes/float64(p.WALBytes))
		bound := "any speed: nearly all of it is images"
		if share < 0.95 {
			bound = fmt.Sprintf("at most %.1fx as fast", 1/(1-share))
		}
		return Prediction{NotPredicted: fmt.Sprintf("%d full-page images in the %s of WAL the primary wrote over the window: at most %s of it (a page each); compression shrinks only those, so the link would carry at least %s of the WAL it carries today, %s; what lz4 or pglz saves of these pages was not measured: turn it on and diagnose again",
			p.FPI, bytesText(p.WALBytes), pct(share), pct(1-share), bound)}, true
	}
	pr := Prediction{Factor: 1, Speedup: 1, Drain: p.Received, LimitedBy: StageLink,
		Model: fmt.Sprintf("the %s of WAL the primary wrote over the window carried no full-page images (pg_stat_wal.wal_fpi did not grow): wal_compression shrinks only those, so the link carries what it carries today, %s", bytesText(p.WALBytes), units.FormatRate(p.Received))}
	pr.CatchUpS = drainCatchUp(pr.Drain, p)
	return pr, true
}

// drainCatchUp is the catch-up at a predicted drain: the WAL behind over
// the drain less the WAL rate; -1 when that is not positive (still falling
// behind), 0 when nothing is behind.
func drainCatchUp(drain float64, p measure.Physical) float64 {
	switch net, behind := drain-p.Generated, p.Behind(); {
	case behind <= IdleLag:
		return 0
	case net <= StillRate:
		return -1
	default:
		return float64(behind) / net
	}
}
