package lab

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lagscope/lagscope/internal/units"
)

// LoadKind is what the publisher's pgbench does while the pair is measured.
type LoadKind int

// Load kinds.
const (
	LoadNone  LoadKind = iota // load stopped: the publisher has spare CPU
	LoadFull                  // 16 clients as fast as they can: publisher CPU saturated
	LoadLight                 // a rate-limited trickle the subscriber keeps up with
)

// Scenario is a recipe that drives a pair into one known state.
type Scenario struct {
	Name    string
	Summary string
	Layout  Layout
	// Backlog builds a backlog with the subscriptions disabled first.
	Backlog bool
	// During is the load while measuring.
	During LoadKind
	// Link routes the subscription through the rate-limited proxy.
	Link bool
	// RowFilter is a publication row filter that keeps almost no change.
	RowFilter string
	// SubIndexes adds this many secondary indexes (on k, v, ...) to the
	// subscriber's copy of hot only: every replicated UPDATE then maintains
	// them, a common real cause of an apply-bound subscriber.
	SubIndexes int
	// HoldLock, if set, is the mode of a LOCK TABLE hot that a session on
	// the subscriber (application_name lab-lock-holder) takes in an open
	// transaction before the subscriptions are enabled and holds until the
	// window ends: the apply worker waits on it (the subscriber-lock case).
	HoldLock string
	// FullIdentity publishes hot with REPLICA IDENTITY FULL and drops the
	// subscriber's primary key (no index is left there), so the apply
	// worker scans the table sequentially for every replicated UPDATE; the
	// backlog is then single-row updates sized in apply time, not in bytes
	// (see fullIdentityUpdates).
	FullIdentity bool
	// SubHogs is the number of subscriber sessions (application_name
	// lab-cpu-hog) running a CPU-bound query while the window runs: they
	// share the subscriber's pinned CPU with the apply worker.
	SubHogs int
	// SubCPULimit puts the subscriber's server in a cgroup with this CPU
	// quota, in CPUs (0 = none): a container's CPU limit (needs root and a
	// writable cgroup CPU controller).
	SubCPULimit float64
	// PubReadLimit caps the publisher's disk reads at this many bytes/s
	// (a cloud volume's throughput limit; needs root and a block device),
	// and the backlog's WAL is dropped from the page cache before the
	// subscription starts: the walsender reads it from the capped disk.
	PubReadLimit int64
	// SubReadLimit caps the subscriber's disk reads at this many bytes/s,
	// gives it shared_buffers of 2MB, and keeps its table and index files
	// out of the page cache while the window runs: data larger than memory, so the
	// apply worker reads pages from a slow disk (needs root).
	SubReadLimit int64
	// SyncStandby gives the subscriber a synchronous standby behind a link
	// of this many bytes/s and sets synchronous_commit = on for the
	// subscriptions (0 = none): the apply worker waits on SyncRep.
	SyncStandby units.ByteRate
	// InitialSync leaves the subscriber's table empty and creates the
	// subscription with copy_data = true: a tablesync worker copies the
	// table (through the link, so that the copy outlasts the window at a
	// slow --rate) while diagnose runs.
	InitialSync bool
	// BigTxn builds the backlog as one transaction that updates every row
	// of hot until about bigTxnChanges rows changed. With Streaming
	// "parallel" (16+) the subscription streams it to a parallel apply
	// worker; with "off" the walsender sends it whole at its commit, and the
	// window starts once the subscriber receives it.
	BigTxn bool
	// Decoding measures a BigTxn with streaming off while the walsender
	// still decodes it, instead of once the subscriber receives it.
	Decoding bool
	// Streaming is the subscriptions' streaming option ("" = the lab's
	// default, on).
	Streaming string
	// OpenTxn: once the subscription runs, a publisher session
	// (application_name lab-open-txn) updates every row of hot until about
	// openTxnChanges rows changed in one transaction and holds it open
	// through the window (then rolls it back): the walsender decodes and
	// spills it, and nothing of it can be sent before its commit.
	OpenTxn bool
	// Consumer replaces the subscriptions with the lab's client consumer
	// of slot lab_consumer (ConsumerSlow or ConsumerLazy): a publisher-only
	// path, diagnosed without the subscriber.
	Consumer string
	// MinMajor is the oldest server version the scenario runs on (0 =
	// any), for the feature Needs.
	MinMajor int
	Needs    string
	// StandbySlot gives the publisher a physical standby whose slot is in
	// synchronized_standby_slots (17+), makes the subscription's slot a
	// failover slot, and stops the standby: the walsender waits for it.
	StandbySlot bool
	// LoseSlot sets max_slot_wal_keep_size under the backlog and
	// checkpoints before the subscriptions are enabled: their slots are
	// lost (invalidated), and the apply workers fail to start streaming.
	LoseSlot bool
	// KeepDisabled leaves the subscriptions disabled (the stalled case).
	KeepDisabled bool
	// Drains says whether the backlog drains once load stops, so the data
	// can be verified afterwards.
	Drains bool
	// Verdict is the diagnosis this state must produce.
	Verdict string
}

// Scenarios lists every scenario, in the order help shows them.
var Scenarios = []Scenario{
	{Name: "apply-bound", Summary: "flat table with 3 extra indexes on the subscriber, backlog, publisher idle: the apply worker saturates its CPU",
		Layout: Flat, Backlog: true, During: LoadNone, SubIndexes: 3, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "walsender-starved", Summary: "flat table, backlog, the 16-client load keeps running on the publisher's CPUs",
		Layout: Flat, Backlog: true, During: LoadFull, Verdict: "walsender-starved"},
	{Name: "network", Summary: "flat table, backlog, publisher idle, subscription through a rate-limited link (--rate)",
		Layout: Flat, Backlog: true, During: LoadNone, Link: true, Drains: true, Verdict: "network"},
	{Name: "subscriber-lock", Summary: "flat table, backlog, publisher idle; a subscriber session (lab-lock-holder) holds LOCK TABLE hot IN SHARE MODE through the window: the apply worker waits on the lock",
		Layout: Flat, Backlog: true, During: LoadNone, HoldLock: "SHARE", Drains: true, Verdict: "subscriber-waits"},
	{Name: "sub-read-io", Summary: "apply-bound's backlog; the subscriber's shared_buffers 2MB, its table and index files dropped from the page cache every 100 ms (other work taking the memory) and its disk reads capped at 4 MB/s: the apply worker reads pages from disk (needs root)",
		Layout: Flat, Backlog: true, During: LoadNone, SubIndexes: 3, SubReadLimit: 4_000_000, Drains: true, Verdict: "subscriber-waits"},
	{Name: "sub-cpu-io", Summary: "sub-read-io with the subscriber's disk reads capped at 200 MB/s: the apply worker splits its time between CPU (~60%) and page reads (~35%); the split depends on the disk's speed",
		Layout: Flat, Backlog: true, During: LoadNone, SubIndexes: 3, SubReadLimit: 200_000_000, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "sync-standby", Summary: "flat table, backlog, publisher idle; the subscriber has a synchronous standby behind a 1 MB/s link and the subscription commits with synchronous_commit = on: the apply worker waits on SyncRep",
		Layout: Flat, Backlog: true, During: LoadNone, SyncStandby: 1_000_000, Drains: true, Verdict: "subscriber-waits"},
	{Name: "full-identity", Summary: "REPLICA IDENTITY FULL, no key or index on the subscriber's copy: a small backlog of single-row updates, each a sequential scan there",
		Layout: Flat, Backlog: true, During: LoadNone, FullIdentity: true, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "subscriber-starved", Summary: "apply-bound's backlog, while 2 CPU-bound sessions on the subscriber share its CPU with the apply worker: it waits on the run queue",
		Layout: Flat, Backlog: true, During: LoadNone, SubIndexes: 3, SubHogs: 2, Drains: true, Verdict: "subscriber-starved"},
	{Name: "cpu-quota", Summary: "apply-bound's backlog, the subscriber's server in a cgroup limited to 0.3 CPU (a container's CPU limit): the apply worker is throttled while its CPU idles (needs root)",
		Layout: Flat, Backlog: true, During: LoadNone, SubIndexes: 3, SubCPULimit: 0.3, Drains: true, Verdict: "subscriber-starved"},
	{Name: "wal-read-io", Summary: "backlog, publisher idle; its WAL dropped from the page cache and the publisher's disk reads capped at 2 MB/s (a cloud volume's throughput limit): the walsender waits on WAL reads (needs root)",
		Layout: Flat, Backlog: true, During: LoadNone, PubReadLimit: 2_000_000, Drains: true, Verdict: "walsender-read-io"},
	{Name: "initial-sync", Summary: "the subscriber's table starts empty and the subscription copies it (copy_data = true) through the link: use a --rate that makes the copy outlast the window (1M rows are ~140 MB)",
		Layout: Flat, During: LoadNone, Link: true, InitialSync: true, Drains: true, Verdict: "initial-sync"},
	{Name: "parallel-apply", Summary: "one large transaction (about 1.2M row updates) streamed to a parallel apply worker (streaming = parallel, PostgreSQL 16+): the parallel worker applies on a full core while the leader waits on it",
		Layout: Flat, Backlog: true, BigTxn: true, Streaming: "parallel", MinMajor: 16, Needs: "streaming = parallel", During: LoadNone, SubIndexes: 3, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "big-txn", Summary: "one large transaction (about 1.2M row updates) with streaming = off: the walsender sends it whole at its commit (sent_lsn stands still) while the apply worker applies it",
		Layout: Flat, Backlog: true, BigTxn: true, Streaming: "off", During: LoadNone, SubIndexes: 3, Drains: true, Verdict: "large-transaction"},
	{Name: "big-txn-decoding", Summary: "one transaction of about 2.4M row updates with streaming = off, measured from the moment the subscription starts: the walsender reads and decodes (and spills) it, nothing is sent before its commit (not drained: applying it takes a minute)",
		Layout: Flat, Backlog: true, BigTxn: true, Decoding: true, Streaming: "off", During: LoadNone, Verdict: "large-transaction"},
	{Name: "open-txn", Summary: "a publisher session (lab-open-txn) holds a transaction of about 600k row updates open (streaming = off): the walsender decoded and spilled it, the slot looks caught up while restart_lsn holds its WAL",
		Layout: Flat, OpenTxn: true, Streaming: "off", During: LoadNone, Drains: true, Verdict: "large-transaction"},
	{Name: "decode-bound", Summary: "an expensive publication row filter discards every change: the walsender is CPU-bound, apply idles (PostgreSQL 15+)",
		Layout: Flat, Backlog: true, During: LoadNone, RowFilter: "mod(power(id::numeric, 250), 7) = -1", Verdict: "walsender-decode-cpu"},
	{Name: "slow-consumer", Summary: "backlog, publisher idle; a client consumer (lab-consumer, not a subscription) reads slot lab_consumer at 2 MB/s: the walsender waits to write, diagnosed from the publisher only",
		Layout: Flat, Backlog: true, During: LoadNone, Consumer: ConsumerSlow, Verdict: "network-or-consumer"},
	{Name: "lazy-confirmer", Summary: "backlog, then a light load; a client consumer (lab-consumer) reads slot lab_consumer at once but confirms only every 5 minutes: everything is sent, little confirmed",
		Layout: Flat, Backlog: true, During: LoadLight, Consumer: ConsumerLazy, Verdict: "confirmation-lag"},
	{Name: "standby-slots", Summary: "backlog, publisher idle; the subscription's slot is a failover slot and synchronized_standby_slots lists the slot of a physical standby that is down (PostgreSQL 17+): the walsender waits for it",
		Layout: Flat, Backlog: true, During: LoadNone, StandbySlot: true, MinMajor: 17, Needs: "synchronized_standby_slots and failover slots", Verdict: "walsender-waits-standby"},
	{Name: "lost-slot", Summary: "a backlog larger than max_slot_wal_keep_size (32MB) and a checkpoint while the subscription is disabled: the slot is lost; the enabled subscription cannot stream",
		Layout: Flat, Backlog: true, During: LoadNone, LoseSlot: true, Verdict: "stalled"},
	{Name: "stalled", Summary: "the subscription stays disabled while the load runs: lag grows, nothing is consumed",
		Layout: Flat, During: LoadFull, KeepDisabled: true, Verdict: "stalled"},
	{Name: "caught-up", Summary: "a light load the subscriber keeps up with",
		Layout: Flat, During: LoadLight, Drains: true, Verdict: "caught-up"},
	{Name: "flat", Summary: "seed 000 layout: plain table, 1 publication, 1 subscription (--busy keeps the load running)",
		Layout: Flat, Backlog: true, During: LoadNone, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "hash4-1", Summary: "seed 000 layout: hash partitioned in 4, 1 publication, 1 subscription",
		Layout: Hash4x1, Backlog: true, During: LoadNone, Drains: true, Verdict: "subscriber-apply-cpu"},
	{Name: "hash4-4", Summary: "seed 000 layout: 4 partitions, 4 publications, 4 subscriptions",
		Layout: Hash4x4, Backlog: true, During: LoadNone, Drains: true, Verdict: "subscriber-apply-cpu"},
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
			s.During, s.Drains, s.Verdict = LoadFull, false, "walsender-starved"
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
