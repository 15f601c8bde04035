package lab

// ScenarioName names a state the lab makes (a recipe, and the scenario
// that holds it). Several are named after the verdict they make
// ("network", "stalled"): a name of its own kind, not the verdict's.
type ScenarioName string

// A Recipe drives a pair into one known state, stated as values: the
// pair's schema (layout, indexes, identity, filters, settings, limits),
// the steps that load and fault it in order (each lifted in reverse when
// the window ends) and how the window ends. Package scenario holds the
// lab's scenarios: each a recipe with the state it makes and the verdict
// that state must produce.
type Recipe struct {
	Name    ScenarioName
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
}

// Under these many unconfirmed bytes a backlog counts as drained: 1 MB, or
// 16 kB for full-identity, whose whole backlog is 1-4 MB (about 40
// updates; 1.4 s of apply at the default 1M rows).
const (
	DrainedMB   = 1 << 20
	Drained16kB = 16 << 10
)
