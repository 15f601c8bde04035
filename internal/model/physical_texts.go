package model

import (
	"fmt"
	"slices"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// physicalAdvice are the texts of the logical path's verdicts a physical
// path is given too, in a physical path's words (the physical verdicts'
// own are adviceFor's).
var physicalAdvice = map[VerdictName]advice{
	CaughtUp: {headline: "the standby keeps up: what the primary writes is replayed within seconds",
		helps: []Advice{{KeyNothingNeeded, "nothing needed", nil, nil}}},
	Stalled: {headline: "nothing reaches the standby: it receives no WAL",
		helps: []Advice{{KeyReceiverRunning, "start the standby's WAL receiver: fix primary_conninfo, the primary's reachability, or its max_wal_senders (the standby's log says which)", nil, nil}},
		not:   []Advice{{KeyAnySpeed, "anything about speed: nothing is received", nil, nil}}},
	Network: {headline: "the link is the limit: WAL waits to be sent while the walsender and the standby wait for it",
		helps: []Advice{{KeyBandwidth, "more bandwidth between the primary and the standby", nil, nil},
			{KeyWALCompression, "wal_compression on the primary: smaller full-page images in the WAL the link carries", nil, nil}},
		not: []Advice{{KeyBothCPU, "CPU on either server", nil, nil}, {KeyReplayFasterCore, "replay tuning: replay waits for WAL", nil, nil}}},
	WalsenderStarved: {headline: "the walsender is starved of CPU on a busy primary: it is runnable but not running",
		helps: []Advice{{KeyPublisherCPU, "CPU headroom on the primary (fewer competing backends, more cores, moving the load)", nil, nil}},
		not:   []Advice{{KeyBandwidth, "more bandwidth: the walsender, not the link, limits", nil, nil}, {KeyReplayFasterCore, "replay tuning: the standby waits for WAL", nil, nil}}},
	WalsenderReadIO: {headline: "the walsender mostly waits for WAL reads from the primary's disk",
		helps: []Advice{{KeyWALStorage, "WAL on faster storage (a cloud volume's throughput or IOPS limit counts)", nil, nil}, {KeyPageCache, "memory for the primary's page cache, and keeping the standby close enough that the WAL it needs is still cached", nil, nil}},
		not:   []Advice{{KeyBandwidth, "more bandwidth", nil, nil}, {KeyReplayFasterCore, "replay tuning: the standby waits for WAL", nil, nil}}},
}

// standbyServer is the server a physical remedy's statements run on.
const standbyServer = string(topology.Standby)

// physicalTexts sets v's headline, cause and advice: the verdict's texts
// for a physical path, with the statements and figures of what was seen
// (the holder to cancel, the delay, the pause).
func physicalTexts(v Verdict, in PhysicalInput) Verdict {
	a, ok := physicalAdvice[v.Name]
	if !ok {
		a = adviceFor[v.Name]
	}
	v.Headline, v.Cause = a.headline, v.d.cause
	v.Helps, v.NotHelps = slices.Clone(a.helps), slices.Clone(a.not)
	p := in.Path
	switch v.Name {
	case ReplayPaused:
		state := v.d.fill
		if state == "" {
			state = "waiting in RecoveryPause"
		}
		v.Cause = fmt.Sprintf("replay is %s (pg_wal_replay_pause(), or a recovery_target with recovery_target_action = pause): %s received stays unreplayed", state, bytesText(p.Unreplayed))
		v.Helps = []Advice{{KeyResumeReplay, "resume replay once whatever paused it is done", []quote.Statement{quote.SQL("SELECT pg_wal_replay_resume();").OnServer(standbyServer)}, nil}}
	case ReplayDelayed:
		if p.Last != nil && p.Last.Settings.MinApplyDelayMS > 0 {
			d := float64(p.Last.Settings.MinApplyDelayMS) / 1000
			v.Cause = fmt.Sprintf("recovery_min_apply_delay is %s: each transaction is replayed that long after its commit on the primary, so the standby is behind by design", secs(d))
			v.Helps = []Advice{{KeyRemoveApplyDelay, "nothing, if the delay is wanted (a standby kept behind to undo mistakes); otherwise remove it (or set a shorter one the same way)",
				[]quote.Statement{quote.SQL("ALTER SYSTEM SET recovery_min_apply_delay = 0;").OnServer(standbyServer), quote.SQL("SELECT pg_reload_conf();").OnServer(standbyServer)},
				Figures{"delay_s": d}}}
		}
	case ReplayConflict:
		v.Cause = conflictCause(v.d.fill, p)
		v.Helps = slices.Concat(conflictHelps(p), v.Helps)
	case Network:
		// wal_compression shrinks full-page images alone: a window whose
		// WAL carried none rules it out (physWALCompression).
		if p.NoFullPageImages() {
			v.Helps = slices.DeleteFunc(v.Helps, func(a Advice) bool { return a.Key == KeyWALCompression })
			v.NotHelps = append(v.NotHelps, Advice{KeyWALCompression, fmt.Sprintf("wal_compression: the %s of WAL the primary wrote over the window carried no full-page images (pg_stat_wal.wal_fpi did not grow), the only part it compresses", bytesText(p.WALBytes)), nil, nil})
		}
	case SyncStandbyWait:
		if s := p.Sender; s != nil {
			v.Cause = fmt.Sprintf("the standby %q is %s (pg_stat_replication.sync_state): a commit on the primary returns once this standby confirms it (its write, flush or replay, per synchronous_commit)", s.AppName, s.SyncState)
		}
	}
	return v
}

// conflictNoun says what a conflict class holds, for the text.
var conflictNoun = map[string]string{
	measure.ReplayConflictSnapshot:   "a snapshot that still sees rows replay removes",
	measure.ReplayConflictLock:       "a lock replay needs (an AccessExclusiveLock from the primary)",
	measure.ReplayConflictTablespace: "a tablespace's files replay drops (temporary files)",
	measure.ReplayConflictBufferPin:  "a pin on a buffer replay must clean up",
}

// conflictCause names what replay waits for and when
// max_standby_streaming_delay ends the wait.
func conflictCause(class string, p measure.Physical) string {
	s := fmt.Sprintf("replay waits for a standby query holding %s", conflictNoun[class])
	if len(p.Holders) == 0 {
		return s + "; the holding session was not seen (pg_stat_activity on the standby names it: its backend_xmin, or the lock it holds)"
	}
	h := p.Holders[0]
	return s + ": " + holderText(h) + "; " + cancelWhen(p)
}

// holderText names a conflict holder: pid, user, start, what it holds.
func holderText(h sample.ConflictHolder) string {
	s := fmt.Sprintf("pid %d (user %q, application_name %q", h.PID, h.User, h.AppName)
	if h.XactStart != nil {
		s += ", transaction started " + h.XactStart.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	s += fmt.Sprintf(") holds a %s", h.Holds)
	if h.Query != "" {
		s += fmt.Sprintf(", running %q", h.Query)
	}
	return s
}

// cancelWhen says when max_standby_streaming_delay (or, without a WAL
// receiver, max_standby_archive_delay) cancels the holder.
func cancelWhen(p measure.Physical) string {
	if p.Last == nil {
		return "when replay cancels it is not known"
	}
	name, ms := "max_standby_streaming_delay", p.Last.Settings.MaxStreamingDelayMS
	if p.Last.Receiver == nil {
		name, ms = "max_standby_archive_delay", p.Last.Settings.MaxArchiveDelayMS
	}
	switch {
	case ms < 0:
		return fmt.Sprintf("replay never cancels it: %s = -1 lets replay wait for it forever", name)
	case float64(ms)/1000 <= p.HeldS:
		return fmt.Sprintf("%s (%s) has passed while it was seen holding replay (%s): replay cancels it at its next check", name, secs(float64(ms)/1000), secs(p.HeldS))
	}
	return fmt.Sprintf("replay cancels it once it has waited %s (%s) since the WAL arrived: within about %s, as it was seen holding replay for %s", name, secs(float64(ms)/1000), secs(float64(ms)/1000-p.HeldS), secs(p.HeldS))
}

// conflictHelps are the statements for a conflict: cancel exactly the
// holder seen (its pid while it is still the backend seen, by its
// backend_start), and bound the delay when it is -1.
func conflictHelps(p measure.Physical) []Advice {
	var out []Advice
	if len(p.Holders) > 0 {
		h := p.Holders[0]
		if h.BackendStart == "" {
			out = append(out, Advice{KeyCancelConflictHolder, fmt.Sprintf("cancel the holding query (pid %d) on the standby if it can be run again later: its backend's start time was not read, so check pg_stat_activity before cancelling anything", h.PID), nil, Figures{"pid": float64(h.PID)}})
		} else {
			out = append(out, Advice{KeyCancelConflictHolder, fmt.Sprintf("cancel the holding query (pid %d) on the standby if it can be run again later; the statement cancels it only while that pid is still the backend seen (its start time)", h.PID),
				[]quote.Statement{quote.SQL("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE pid = %d AND backend_start = %L;", h.PID, h.BackendStart).OnServer(standbyServer)},
				Figures{"pid": float64(h.PID)}})
		}
	}
	if p.Last != nil && p.Last.Settings.MaxStreamingDelayMS < 0 {
		out = append(out, Advice{KeyBoundStandbyDelay, "a bounded max_standby_streaming_delay (the default is 30s) for the next conflict: with -1 a query can hold replay for as long as it runs. A reload does not end the wait under way (the startup process reads its settings between records): the holding query's end does",
			[]quote.Statement{quote.SQL("ALTER SYSTEM SET max_standby_streaming_delay = %L;", "30s").OnServer(standbyServer), quote.SQL("SELECT pg_reload_conf();").OnServer(standbyServer)}, nil})
	}
	return out
}
