package lab

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Scenario is a recipe that drives a pair into one known state, stated as
// values: the pair's schema (layout, indexes, identity, filters, settings,
// limits), the steps that load and fault it in order (each lifted in
// reverse when the window ends), how the window ends, and the verdict the
// state must produce. Adding a scenario is adding an entry to Scenarios.
type Scenario struct {
	Name    string
	Summary string

	// The pair's schema.
	Layout Layout
	// Link routes the subscription through the rate-limited proxy.
	Link bool
	// RowFilter is a publication row filter that keeps almost no change.
	RowFilter string
	// SubIndexes adds this many secondary indexes (on k, v, ...) to the
	// subscriber's copy of hot only: every replicated UPDATE then maintains
	// them, a common real cause of an apply-bound subscriber.
	SubIndexes int
	// FullIdentity publishes hot with REPLICA IDENTITY FULL and drops the
	// subscriber's primary key (no index is left there), so the apply
	// worker scans the table sequentially for every replicated UPDATE.
	FullIdentity bool
	// InitialSync leaves the subscriber's table empty and creates the
	// subscription with copy_data = true: a tablesync worker copies it.
	InitialSync bool
	// Text creates the subscriptions with binary = false (PostgreSQL's
	// default; the lab's pairs otherwise use binary = true, as seed 000).
	Text bool
	// Streaming is the subscriptions' streaming option ("" = the lab's
	// default, on).
	Streaming string
	// PubSettings and SubSettings are server settings the scenario needs.
	PubSettings, SubSettings map[string]string
	// SubCPULimit puts the subscriber's server in a cgroup with this CPU
	// quota, in CPUs (0 = none): a container's CPU limit (needs root).
	SubCPULimit float64
	// PubReadLimit caps the publisher's disk reads at this many bytes/s (a
	// cloud volume's throughput limit; needs root and a block device).
	PubReadLimit int64
	// SubReadLimit caps the subscriber's disk reads at this many bytes/s
	// (needs root).
	SubReadLimit int64
	// Consumer is the kind of the lab's client consumer (ConsumerSlow or
	// ConsumerLazy) that replaces the subscriptions: a publisher-only
	// path, diagnosed without the subscriber.
	Consumer string
	// MinMajor is the oldest server version the scenario runs on (0 =
	// any), for the feature Needs.
	MinMajor int
	Needs    string

	// Steps load and fault the pair, in order (see Step).
	Steps []Step
	// UntilBelow ends the window early once every slot's unconfirmed WAL
	// is under this many bytes and no table is still copied (0: sample the
	// whole window: a load keeps running, or the slot looks drained while
	// it is not).
	UntilBelow int64
	// Drains says whether the backlog drains once the steps are lifted, so
	// the data can be verified afterwards.
	Drains bool
	// Verdict is the diagnosis this state must produce.
	Verdict string
}

// Under these many unconfirmed bytes a backlog counts as drained: 1 MB, or
// 16 kB for full-identity, whose whole backlog is 1-4 MB (about 40
// updates; 1.4 s of apply at the default 1M rows).
const (
	drainedMB   = 1 << 20
	drained16kB = 16 << 10
)

// Scenarios lists every scenario, in the order help shows them. The
// backlog shares are sized so that the backlog outlasts the window at the
// scenario's drain speed on a 1-core publisher.
var Scenarios = []Scenario{
	{Name: "apply-bound", Summary: "flat table with 3 extra indexes on the subscriber, backlog, publisher idle: the apply worker saturates its CPU",
		Layout: Flat, SubIndexes: 3,
		// The apply worker is slower than the load: a shorter backlog still
		// outlasts the window and drains sooner afterwards.
		Steps:      []Step{backlog(1.2), enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "apply-text", Summary: "apply-bound with the subscription in text (binary = false, PostgreSQL's default): the apply worker also runs each column's input function",
		Layout: Flat, SubIndexes: 3, Text: true,
		// The launcher restarts an apply worker whose options changed
		// (binary=on) after this long at most: 5 s by default.
		SubSettings: map[string]string{"wal_retrieve_retry_interval": "200ms"},
		Steps:       []Step{backlog(1.2), enable},
		UntilBelow:  drainedMB, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "walsender-starved", Summary: "flat table, backlog, the 16-client load keeps running on the publisher's CPUs",
		Layout: Flat, Steps: []Step{backlogUnderLoad(0.3), enable}, Verdict: "walsender-starved"},
	{Name: "network", Summary: "flat table, backlog, publisher idle, subscription through a rate-limited link (--rate)",
		Layout: Flat, Link: true, Steps: []Step{backlog(0.6), enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "network"},
	{Name: "subscriber-lock", Summary: "flat table, backlog, publisher idle; a subscriber session (lab-lock-holder) holds LOCK TABLE hot IN SHARE MODE through the window: the apply worker waits on the lock",
		Layout: Flat,
		// Nothing drains while the lock is held: a modest backlog is enough
		// to see, and drains quickly once the lock goes.
		Steps:      []Step{backlog(0.5), holdLock("SHARE"), enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-waits"},
	{Name: "row-lock", Summary: "flat table, backlog, publisher idle; a subscriber session (lab-lock-holder) locks every row of hot with SELECT ... FOR UPDATE and keeps its transaction open through the window: the apply worker waits on its transaction id",
		Layout:     Flat,
		Steps:      []Step{backlog(0.5), holdRowLocks, enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-waits"},
	{Name: "sub-read-io", Summary: "apply-bound's backlog; the subscriber's shared_buffers 2MB, its table and index files dropped from the page cache every 100 ms (other work taking the memory) and its disk reads capped at 4 MB/s: the apply worker reads pages from disk (needs root)",
		Layout: Flat, SubIndexes: 3, SubReadLimit: 4_000_000, SubSettings: map[string]string{"shared_buffers": "2MB"},
		// ~25 MB: longer than the window for an apply worker reading pages
		// at 4 MB/s.
		Steps:      []Step{backlog(0.3), enable, evictHotData},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-waits"},
	{Name: "sub-cpu-io", Summary: "sub-read-io with the subscriber's disk reads capped at 200 MB/s: the apply worker splits its time between CPU (~60%) and page reads (~35%); the split depends on the disk's speed",
		Layout: Flat, SubIndexes: 3, SubReadLimit: 200_000_000, SubSettings: map[string]string{"shared_buffers": "2MB"},
		// A fast disk: the apply worker runs at about half apply-bound's
		// speed (on 16.14 the slow disk's share of 0.3, ~25 MB, once drained
		// to 4 kB within the window).
		Steps:      []Step{backlog(1.2), enable, evictHotData},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "sync-standby", Summary: "flat table, backlog, publisher idle; the subscriber has a synchronous standby behind a 1 MB/s link and the subscription commits with synchronous_commit = on: the apply worker waits on SyncRep",
		Layout: Flat,
		// The subscriber applies about 1 MB/s behind its standby's link: a
		// short backlog outlasts the window and drains fast once lifted.
		Steps:      []Step{withSyncStandby(1_000_000), backlog(0.3), enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-waits"},
	{Name: "full-identity", Summary: "REPLICA IDENTITY FULL, no key or index on the subscriber's copy: a small backlog of single-row updates, each a sequential scan there",
		Layout: Flat, FullIdentity: true,
		// Apply time, not load time: see fullIdentityUpdates.
		Steps:      []Step{fullIdentityBacklog(2), enable},
		UntilBelow: drained16kB, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "full-identity-index", Summary: "REPLICA IDENTITY FULL, no key on the subscriber's copy but a plain btree on id, which the apply worker uses to find each row (PostgreSQL 16+); apply-bound's backlog: it saturates its CPU",
		Layout: Flat, FullIdentity: true, MinMajor: 16, Needs: "an apply worker that finds REPLICA IDENTITY FULL rows by a non-key index",
		Steps:      []Step{subIndexOnID, backlog(1.2), enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "trigger-sleep", Summary: "flat table, backlog, publisher idle; a row trigger on the subscriber's copy, ENABLE ALWAYS, sleeps 1 ms per replicated row (pg_sleep): the apply worker waits on PgSleep",
		Layout: Flat,
		// About 1,000 rows/s while the trigger sleeps: a short backlog
		// outlasts the window and drains in seconds once it is dropped.
		Steps:      []Step{backlog(0.2), replicaTrigger(TriggerSleeps), enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-waits"},
	{Name: "trigger-cpu", Summary: "flat table, backlog, publisher idle; a row trigger on the subscriber's copy, ENABLE ALWAYS, computes per replicated row (no extra index): the apply worker saturates its CPU in the trigger",
		Layout:     Flat,
		Steps:      []Step{backlog(0.4), replicaTrigger(TriggerCPU), enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "subscriber-starved", Summary: "apply-bound's backlog, while 2 CPU-bound sessions on the subscriber share its CPU with the apply worker: it waits on the run queue",
		Layout: Flat, SubIndexes: 3, Steps: []Step{backlog(1.2), cpuHogs(2), enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-starved"},
	{Name: "cpu-quota", Summary: "apply-bound's backlog, the subscriber's server in a cgroup limited to 0.3 CPU (a container's CPU limit): the apply worker is throttled while its CPU idles (needs root)",
		Layout: Flat, SubIndexes: 3, SubCPULimit: 0.3, Steps: []Step{backlog(1.2), enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-starved"},
	{Name: "wal-read-io", Summary: "backlog, publisher idle; its WAL dropped from the page cache and the publisher's disk reads capped at 2 MB/s (a cloud volume's throughput limit): the walsender waits on WAL reads (needs root)",
		Layout: Flat, PubReadLimit: 2_000_000,
		// ~45 MB at the default 16 clients: 20 s or more to read at 2 MB/s.
		Steps:      []Step{backlog(0.5), evictWAL, enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "walsender-read-io"},
	{Name: "initial-sync", Summary: "the subscriber's table starts empty and the subscription copies it (copy_data = true) through the link: use a --rate that makes the copy outlast the window (1M rows are ~140 MB)",
		Layout: Flat, Link: true, InitialSync: true, Steps: []Step{enable},
		UntilBelow: drainedMB, Drains: true, Verdict: "initial-sync"},
	{Name: "parallel-apply", Summary: "one large transaction (about 1.2M row updates) streamed to a parallel apply worker (streaming = parallel, PostgreSQL 16+): the parallel worker applies on a full core while the leader waits on it",
		Layout: Flat, SubIndexes: 3, Streaming: "parallel", MinMajor: 16, Needs: "streaming = parallel",
		// Stream the transaction from its first 64 kB instead of 64 MB, so
		// the parallel worker starts applying at once.
		PubSettings: map[string]string{"logical_decoding_work_mem": "64kB"},
		Steps:       []Step{bigTxn(bigTxnChanges), enable},
		UntilBelow:  drainedMB, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "big-txn", Summary: "one large transaction (about 1.2M row updates) with streaming = off: the walsender sends it whole at its commit (sent_lsn stands still) while the apply worker applies it",
		Layout: Flat, SubIndexes: 3, Streaming: "off",
		// Sent whole at its commit: measured once the apply side has it, for
		// the whole window (a keepalive can carry the slot past it: it looks
		// drained from the start).
		Steps:  []Step{bigTxn(bigTxnChanges), enable, waitReceived},
		Drains: true, Verdict: "large-transaction"},
	{Name: "big-txn-decoding", Summary: "one transaction of about 3.6M row updates with streaming = off, measured from the moment the subscription starts: the walsender reads and decodes (and spills) it, nothing is sent before its commit (not drained: applying it takes a minute)",
		Layout: Flat, Streaming: "off", Steps: []Step{bigTxn(decodingTxnChanges), enable}, Verdict: "large-transaction"},
	{Name: "open-txn", Summary: "a publisher session (lab-open-txn) holds a transaction of about 600k row updates open (streaming = off): the walsender decoded and spilled it, the slot looks caught up while restart_lsn holds its WAL",
		Layout: Flat, Streaming: "off",
		// The slot confirms all it was sent: it looks drained from the start.
		Steps:  []Step{enable, holdOpenTxn},
		Drains: true, Verdict: "large-transaction"},
	{Name: "decode-bound", Summary: "an expensive publication row filter discards every change: the walsender is CPU-bound, apply idles (PostgreSQL 15+)",
		Layout: Flat, RowFilter: "mod(power(id::numeric, 250), 7) = -1", Steps: []Step{backlog(1.5), enable},
		UntilBelow: drainedMB, Verdict: "walsender-decode-cpu"},
	{Name: "slow-consumer", Summary: "backlog, publisher idle; a client consumer (lab-consumer, not a subscription) reads slot lab_consumer at 2 MB/s: the walsender waits to write, diagnosed from the publisher only",
		Layout: Flat, Consumer: ConsumerSlow,
		// ~65 MB: 30 s or more at the consumer's 2 MB/s, so the backlog
		// outlasts the window with a margin (with ~25 MB, 2 runs of 3 on
		// 16.14 read it down to 10-14 MB within the window: caught up).
		Steps:      []Step{consumerSlot, backlog(0.8), consume(ConsumerSlow)},
		UntilBelow: drainedMB, Verdict: "network-or-consumer"},
	{Name: "lazy-confirmer", Summary: "backlog, then a light load; a client consumer (lab-consumer) reads slot lab_consumer at once but confirms only every 5 minutes: everything is sent, little confirmed",
		Layout: Flat, Consumer: ConsumerLazy, Steps: []Step{consumerSlot, backlog(0.3), lightLoad, consume(ConsumerLazy)},
		Verdict: "confirmation-lag"},
	{Name: "standby-slots", Summary: "backlog, publisher idle; the subscription's slot is a failover slot and synchronized_standby_slots lists the slot of a physical standby that is down (PostgreSQL 17+): the walsender waits for it",
		Layout: Flat, MinMajor: 17, Needs: "synchronized_standby_slots and failover slots",
		Steps:      []Step{standbySlot, backlog(1.6), enable},
		UntilBelow: drainedMB, Verdict: "walsender-waits-standby"},
	{Name: "lost-slot", Summary: "a backlog larger than max_slot_wal_keep_size (32MB) and a checkpoint while the subscription is disabled: the slot is lost; the enabled subscription cannot stream",
		Layout: Flat, PubSettings: map[string]string{"max_slot_wal_keep_size": lostSlotKeep},
		Steps:      []Step{backlog(1.6), loseSlots, enableNoWait},
		UntilBelow: drainedMB, Verdict: "stalled"},
	{Name: "slot-filling", Summary: "the subscription stays disabled (its subscriber down) while a steady load (4 clients, 600 transactions/s) writes WAL, with max_slot_wal_keep_size = 192MB: the slot's retained WAL grows toward the limit, past which its WAL is no longer reserved and a checkpoint invalidates it",
		Layout: Flat, PubSettings: map[string]string{"max_slot_wal_keep_size": "192MB"},
		Steps: []Step{steadyLoad(4, 600, 20*time.Second)}, Verdict: "stalled"},
	{Name: "slot-idle", Summary: "the subscription stays disabled (its subscriber down) under a light load, with idle_replication_slot_timeout = 45s and checkpoint_timeout = 30s (PostgreSQL 18+): the slot stays inactive, and the first checkpoint after it has been inactive 45 s invalidates it (idle_timeout)",
		Layout: Flat, MinMajor: 18, Needs: "idle_replication_slot_timeout",
		PubSettings: map[string]string{"idle_replication_slot_timeout": "45s", "checkpoint_timeout": "30s"},
		Steps:       []Step{lightLoad}, Verdict: "stalled"},
	{Name: "conflict-missing", Summary: "apply-bound's flat table with 3 extra subscriber indexes and a backlog; before the subscription is enabled, rows 1-2000 of hot are deleted on the subscriber only: every update of them is an update_missing conflict, skipped (counted on 18+)",
		// The extra indexes keep the apply worker the limit: without them it
		// ran as fast as the walsender (both 87-88% CPU on 15.18 in make
		// test) and the backlog drained within the window: inconclusive.
		Layout: Flat, SubIndexes: 3, Steps: []Step{backlog(1.6), deleteSubRows, enable}, UntilBelow: drainedMB, Verdict: "subscriber-apply-cpu"},
	{Name: "conflict-exists", Summary: "a key inserted on the subscriber, then on the publisher, ahead of a backlog: the apply worker fails on the insert (insert_exists on 18+) and again at each retry",
		Layout: Flat, Steps: []Step{takeKey, backlog(0.3), enableNoWait}, Verdict: "stalled"},
	{Name: "missing-column", Summary: "flat table, backlog, publisher idle; the subscriber's copy of hot lacks the published column v: the apply worker stops at its first change with an error, again at each retry",
		Layout: Flat, Steps: []Step{backlog(0.3), dropSubColumn, enableNoWait}, Verdict: "stalled"},
	{Name: "stalled", Summary: "the subscription stays disabled while the load runs: lag grows, nothing is consumed",
		Layout: Flat, Steps: []Step{fullLoad}, Verdict: "stalled"},
	{Name: "caught-up", Summary: "a light load the subscriber keeps up with",
		Layout: Flat, Steps: []Step{lightLoad, enable}, Drains: true, Verdict: "caught-up"},
	// pgbench and the publisher share one core here: generation runs below
	// the apply rate, so the layouts build for longer than the window.
	{Name: "flat", Summary: "seed 000 layout: plain table, 1 publication, 1 subscription (--busy keeps the load running)",
		Layout: Flat, Steps: []Step{backlog(1.6), enable}, UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "hash4-1", Summary: "seed 000 layout: hash partitioned in 4, 1 publication, 1 subscription",
		Layout: Hash4x1, Steps: []Step{backlog(1.6), enable}, UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "hash4-4", Summary: "seed 000 layout: 4 partitions, 4 publications, 4 subscriptions",
		Layout: Hash4x4, Steps: []Step{backlog(1.6), enable}, UntilBelow: drainedMB, Drains: true, Verdict: "subscriber-apply-cpu"},
}

// Lookup finds a scenario by name; busy turns a layout scenario's idle
// measurement into the busy one (load keeps running).
func Lookup(name string, busy bool) (Scenario, error) {
	for _, s := range Scenarios {
		if s.Name != name {
			continue
		}
		if busy {
			if s.Name != "flat" && s.Name != "hash4-1" && s.Name != "hash4-4" {
				return Scenario{}, fmt.Errorf("--busy applies to the layout scenarios flat, hash4-1 and hash4-4, not %s", name)
			}
			// The load keeps running: the walsender is starved of CPU.
			s.Steps = []Step{backlogUnderLoad(0.3), enable}
			s.UntilBelow, s.Drains, s.Verdict = 0, false, "walsender-starved"
		}
		return s, nil
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q: choose one of %s", name, strings.Join(Names(), ", "))
}

// Names lists the scenario names.
func Names() []string {
	n := make([]string, len(Scenarios))
	for i, s := range Scenarios {
		n[i] = s.Name
	}
	sort.Strings(n)
	return n
}
