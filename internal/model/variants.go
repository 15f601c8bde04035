package model

import (
	"fmt"
	"slices"

	"github.com/lagscope/lagscope/internal/quote"
)

// variant is one row of the verdict texts beside each verdict's general
// advice (adviceFor): the headline, cause and advice of a verdict when
// fill (what fills the limiting stage's time) or a large transaction's
// phase says more than its name. A nil text is the general one.
type variant struct {
	// verdicts, fill and phase select the row: a verdict in verdicts, the
	// diagnosis's fill and the large transaction's phase ("" for none).
	verdicts    []VerdictName
	fill, phase string
	headline    func(v Verdict) string
	cause       func(v Verdict) string
	helps       func(v Verdict) []Advice
	not         func(v Verdict) []Advice
}

// matches says whether the row is v's.
func (t variant) matches(v Verdict) bool {
	phase := ""
	if v.Txn != nil {
		phase = v.Txn.Phase
	}
	return slices.Contains(t.verdicts, v.Name) && t.fill == v.d.fill && t.phase == phase
}

// text is a variant's fixed text.
func text(s string) func(Verdict) string { return func(Verdict) string { return s } }

// advise is a variant's fixed advice.
func advise(a ...Advice) func(Verdict) []Advice { return func(Verdict) []Advice { return a } }

// generalNotAnd is the verdict's general "does not help" lines and more.
func generalNotAnd(name VerdictName, more ...Advice) func(Verdict) []Advice {
	return func(Verdict) []Advice { return slices.Concat(adviceFor[name].not, more) }
}

// starvedVerdicts are the verdicts of a process starved of CPU.
var starvedVerdicts = []VerdictName{SubscriberStarved, WalsenderStarved}

// Large-transaction advice the phases share.
var (
	adviceStreaming = Advice{KeyStreamingParallelOrOn, "streaming = parallel (16+) or on for the subscription: a large transaction is then sent while it is decoded, from logical_decoding_work_mem on, and (parallel) applied by a parallel worker as it arrives", nil, nil}
	adviceSmaller   = "smaller transactions on the publisher (batch large UPDATE/DELETE jobs)"
)

// variants are the verdict texts by fill and phase; at most one row
// matches a verdict.
var variants = []variant{
	{verdicts: []VerdictName{SubscriberWaits}, fill: FillSyncRep,
		headline: text("the apply worker mostly waits for the subscriber's synchronous standby: each transaction it commits waits until the standby has it"),
		helps:    advise(Advice{KeySynchronousCommitOff, "synchronous_commit = off on the subscription (the default; safe: the slot re-sends what was not flushed)", nil, nil}, Advice{KeyFasterSyncStandby, "a faster or closer synchronous standby for the subscriber", nil, nil})},
	{verdicts: []VerdictName{SubscriberWaits}, fill: FillLock,
		headline: text("the apply worker mostly waits on locks that other sessions on the subscriber hold"),
		cause: func(v Verdict) string {
			if len(v.Blockers) == 0 {
				return v.d.cause
			}
			return v.Blockers[0].Cause()
		},
		helps: func(v Verdict) []Advice {
			h := []Advice{{KeyEndLockHolders, "ending or shortening the local sessions that hold locks on the replicated tables or rows", nil, nil}}
			if len(v.Blockers) == 0 {
				return h
			}
			return append([]Advice{EndBlocker(v.Blockers[0])}, h...)
		},
		not: generalNotAnd(SubscriberWaits, Advice{KeySubscriberDisk, "faster disk: the worker waits on a lock, not on I/O", nil, nil})},
	{verdicts: []VerdictName{SubscriberWaits}, fill: FillIO,
		headline: text("the apply worker mostly waits on the subscriber's disk"),
		helps:    advise(Advice{KeySubscriberDisk, "faster disk for the subscriber's WAL and data", nil, nil}, Advice{KeySubscriberMemory, "more shared_buffers / memory when it reads data files (DataFileRead)", nil, nil})},
	// PgSleep and friends: nothing in PostgreSQL's apply path sleeps per
	// change; what it runs for the rows does (a trigger, a function in a
	// default or a constraint).
	{verdicts: []VerdictName{SubscriberWaits}, fill: FillSleep,
		headline: func(v Verdict) string {
			return fmt.Sprintf("the apply worker mostly sleeps (%s): something it runs for each replicated change waits on purpose, a trigger that fires for replicated rows most often", v.d.stage.OwnTop)
		},
		helps: advise(Advice{KeyFindSleep, "find what sleeps in the apply worker: triggers enabled ALWAYS or REPLICA on the replicated tables (lagscope check lists them), and the functions they call", nil, nil}),
		not:   generalNotAnd(SubscriberWaits, Advice{KeySubscriberDisk, "faster disk: the worker sleeps, it does not wait on I/O", nil, nil})},
	// Neither the disk (nor an LWLock such as WALWrite, which waits for WAL
	// writes) nor a lock nor a standby: name what it is, and advise nothing
	// that is about those.
	{verdicts: []VerdictName{SubscriberWaits}, fill: FillOtherWait,
		headline: func(v Verdict) string {
			return fmt.Sprintf("the apply worker mostly waits on %s on the subscriber", v.d.stage.OwnTop)
		},
		helps: advise(Advice{KeyFindWait, "find what the apply worker waits for (the wait events above; https://www.postgresql.org/docs/current/monitoring-stats.html#WAIT-EVENT-TABLE)", nil, nil}),
		not:   generalNotAnd(SubscriberWaits, Advice{KeySubscriberDisk, "faster disk: the worker does not wait on I/O", nil, nil})},
	// Busy all the time, but not all of it on a CPU: say what it is.
	{verdicts: []VerdictName{SubscriberApplyCPU}, fill: FillCPUPart,
		headline: func(v Verdict) string {
			st := v.d.stage
			return fmt.Sprintf("the subscriber's %s is the limit: it is busy all the time, on a CPU %s of it (the rest on its own I/O and locks %s, waiting for a CPU %s)", v.d.noun, pct(st.CPU), pct(st.Own), pct(st.Runq))
		}},
	{verdicts: starvedVerdicts, fill: FillQuota,
		headline: func(v Verdict) string {
			return fmt.Sprintf("the %s is held back by its CPU limit: its cgroup runs out of CPU quota, so it waits though it could run", v.d.noun)
		},
		cause: func(v Verdict) string {
			return fmt.Sprintf("CPU quota throttling: the %s's container or cgroup has a CPU limit (cgroup v2 cpu.max, v1 cpu.cfs_quota_us) that the %s exhausts", v.d.side, v.d.noun)
		},
		helps: func(v Verdict) []Advice {
			return []Advice{
				{KeyCPULimit, fmt.Sprintf("a higher CPU limit for the %s's container or cgroup (cpu.max; Kubernetes resources.limits.cpu), or a request without a limit", v.d.side), nil, nil},
				{KeyFewerUnderLimit, "fewer processes sharing that limit (other sessions of the same server or container)", nil, nil},
			}
		},
		not: advise(Advice{KeyMoveOtherWork, "moving other work off the host: the limit holds the process back whatever the host's load", nil, nil}, Advice{KeyOtherSide, "more bandwidth, or tuning the other side", nil, nil})},
	{verdicts: starvedVerdicts, fill: FillAffinity,
		headline: func(v Verdict) string {
			return fmt.Sprintf("the %s is runnable but waits for a CPU: the CPUs it may run on are saturated (CPU affinity, a cpuset or a CPU limit), though the %s host as a whole is %s busy", v.d.noun, v.d.side, pct(v.d.hostBusy))
		}},
	{verdicts: starvedVerdicts, fill: FillHeldBack,
		headline: func(v Verdict) string {
			return fmt.Sprintf("the %s waits for a CPU it is not given: every session of that server is held back, as under a CPU limit", v.d.noun)
		},
		cause: func(v Verdict) string {
			return fmt.Sprintf("likely a CPU limit on the %s's container or cgroup (cpu.max, cpu.cfs_quota_us): lagscope's own session there waits %.0f ms for a CPU after every sleep, as tasks throttled by a quota wait for the next period; the %s's cpu.stat (nr_throttled) on its host settles it", v.d.side, v.d.lateMS, v.d.side)
		},
		helps: func(v Verdict) []Advice {
			return []Advice{
				{KeyCPULimit, fmt.Sprintf("a higher CPU limit for the %s's container or cgroup (cpu.max; Kubernetes resources.limits.cpu), or none", v.d.side), nil, nil},
				{KeyDiagnoseAgain, fmt.Sprintf("then diagnose again: the %s's limit is what holds it back now", v.d.noun), nil, nil},
			}
		}},
	{verdicts: []VerdictName{Stalled}, fill: FillFrozen,
		cause: text("the replication connection carries nothing: the walsender cannot write to it and the subscriber receives nothing, as when a network path drops packets without closing the connection (lost firewall or NAT state, a hung proxy); the walsender ends it after wal_sender_timeout (60 s by default) and the subscription connects again"),
		helps: advise(Advice{KeyFindLinkHold, "find what holds the path between publisher and subscriber (firewall or NAT idle timeouts, a proxy or load balancer)", nil, nil}, Advice{KeyTimeouts, "a shorter wal_sender_timeout and wal_receiver_timeout, or TCP keepalives in the subscription's connection string (keepalives_idle=...), notice a dead connection sooner", nil, nil}),
		not:   advise(Advice{KeyBandwidth, "more bandwidth: the link carries nothing, not too little", nil, nil}, Advice{KeyEitherSide, "CPU or schema changes on either side", nil, nil})},
	{verdicts: []VerdictName{Stalled}, fill: FillDisabledByError, helps: disabledByErrorHelps},
	{verdicts: []VerdictName{Stalled}, fill: FillDisabled,
		helps: func(v Verdict) []Advice {
			return []Advice{{KeyFixStop, "enabling the subscription (it was disabled by hand, or by disable_on_error after an apply error: read the subscriber's log first)",
				[]quote.Statement{quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", v.d.sub).OnServer("subscriber")}, nil}}
		}},
	{verdicts: []VerdictName{Stalled}, fill: FillLeftover,
		helps: func(v Verdict) []Advice {
			return []Advice{{KeyDropLeftoverSlot, fmt.Sprintf("dropping the leftover slot on the publisher once %s's tables are ready (srsubstate 'r' in pg_subscription_rel) or the subscription is gone: nothing uses it", quote.Id(v.d.sub)),
				[]quote.Statement{quote.SQL("SELECT pg_drop_replication_slot(%L);", v.d.slot).OnServer("publisher")}, nil}}
		},
		not: advise(Advice{KeyAnySpeed, "anything about speed: nothing uses this slot", nil, nil})},
	{verdicts: []VerdictName{Stalled}, fill: FillUnowned,
		helps: func(v Verdict) []Advice {
			return []Advice{{KeyFindOwner, fmt.Sprintf("finding the subscription with oid %d on the subscriber (pg_subscription lists those of every database) before dropping anything: a slot whose subscription exists is still in use", v.d.subOID),
				[]quote.Statement{quote.SQL("SELECT oid, subname, subdbid FROM pg_subscription WHERE oid = %d;", v.d.subOID).OnServer("subscriber")}, Figures{"sub_oid": float64(v.d.subOID)}}}
		},
		not: advise(Advice{KeyAnySpeed, "anything about speed: the slot's copy is not observed", nil, nil})},
	{verdicts: []VerdictName{Inconclusive}, fill: FillBothStarved,
		helps: advise(Advice{KeyBothCPU, "CPU for both servers, or moving what else runs on their cores", nil, nil}, Advice{KeyDiagnoseAgain, "then diagnose again: the stage that limits next will show", nil, nil})},
	{verdicts: []VerdictName{LargeTransaction}, phase: TxnSending,
		headline: text("a large transaction is being applied: without streaming it is sent whole at its commit, and the subscriber applies it in one go"),
		helps: func(v Verdict) []Advice {
			return append([]Advice{adviceStreaming, {KeySmallerTransactions, adviceSmaller, nil, nil}}, withoutKeys(v.d.inner.Helps, KeyStreamingParallel, KeyStreamingOn, KeyStreaming)...)
		},
		not: func(v Verdict) []Advice { return v.d.inner.NotHelps }},
	{verdicts: []VerdictName{LargeTransaction}, phase: TxnDecoding,
		headline: text("a large transaction is being decoded: without streaming nothing of it is sent until the walsender reaches its commit"),
		helps:    advise(adviceStreaming, Advice{KeySmallerTransactions, adviceSmaller, nil, nil}, Advice{KeyDecodingWorkMem, "logical_decoding_work_mem large enough to hold the transaction (no spill)", nil, nil}),
		not:      advise(Advice{KeySubscriberTuning, "subscriber tuning: it waits for the transaction's commit to be decoded", nil, nil}, Advice{KeyBandwidth, "more bandwidth: nothing is sent yet", nil, nil})},
	{verdicts: []VerdictName{LargeTransaction}, phase: TxnOpen,
		headline: text("a large transaction is open on the publisher: its changes are decoded as written, and nothing of it can be sent before it commits"),
		helps: advise(Advice{KeySmallerTransactions, adviceSmaller + ", or ending the open transaction (pg_terminate_backend on the publisher if it is abandoned)", nil, nil}, adviceStreaming,
			Advice{KeySlotWALCap, "max_slot_wal_keep_size to cap the WAL a slot holds (past it the slot is invalidated)", nil, nil}),
		not: advise(Advice{KeyAnySpeed, "anything about the replication path's speed: nothing can be sent before the commit", nil, nil})},
}

// EndBlocker is the remedy of a session that blocks the apply side: ended
// only if it is still the backend that was seen (its pid and start time),
// since a pid is reused; without the start time (a recording from an older
// lagscope) no statement, and the prose says why.
func EndBlocker(b Blocker) Advice {
	if b.BackendStart == "" {
		return Advice{KeyEndBlocker, fmt.Sprintf("end or shorten the blocking session (pid %d) on the subscriber, or fix the job that holds the lock: the pid was read without the backend's start time (a recording from an older lagscope) and may now be another backend, so check pg_stat_activity before ending anything", b.PID), nil, Figures{"pid": float64(b.PID)}}
	}
	return Advice{KeyEndBlocker, fmt.Sprintf("end or shorten the blocking session (pid %d) on the subscriber, or fix the job that holds the lock; the statement ends it only while that pid is still the backend seen (its start time)", b.PID),
		[]quote.Statement{quote.SQL("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = %d AND backend_start = %L;", b.PID, b.BackendStart).OnServer("subscriber")}, Figures{"pid": float64(b.PID)}}
}

// alsoHelps is the remedy a second resource adds (diagnosis.also).
var alsoHelps = map[string]Advice{
	alsoIO:  {KeySubscriberMemory, "more memory (shared_buffers, page cache) when it reads data files (DataFileRead), and faster disk", nil, nil},
	alsoCPU: {KeySubscriberFasterCPU, "a faster CPU for the subscriber once the reads are served from memory", nil, nil},
}

// parallelHeadline is the headline of a verdict whose limit is the busiest
// parallel apply worker.
func parallelHeadline(v Verdict) string {
	if st := v.d.stage; st.CPU >= 0 && st.CPU < FullCore {
		return fmt.Sprintf("a parallel apply worker is the limit: it applies a large transaction, busy all the time (on a CPU %s of it, waiting for a CPU %s), while the leader waits for it", pct(st.CPU), pct(st.Runq))
	}
	return "a parallel apply worker is the limit: it applies a large transaction on a full core while the leader waits for it"
}

// parallelHelps fits advice to a parallel apply worker as the limit: it
// runs already (no "streaming = parallel"), and one large transaction runs
// on one worker.
func parallelHelps(h []Advice) []Advice {
	return append(withoutKeys(h, KeyStreamingParallel), Advice{KeySmallerTransactions, "smaller transactions on the publisher: each large transaction is applied by one parallel worker", nil, nil})
}
