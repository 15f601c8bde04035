package audit

import (
	"fmt"
	"strconv"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/pgversion"
	"github.com/lagscope/lagscope/internal/quote"
)

// Snapshots is everything the checks read. Either side may be nil when it was
// not given (lagscope check --publisher only, or --subscriber only).
type Snapshots struct {
	Publisher  *Publisher  `json:"publisher,omitempty"`
	Subscriber *Subscriber `json:"subscriber,omitempty"`
	// Standby is a physical standby (check --standby): of the publisher
	// for failover-safety, and the server the standby checks read.
	Standby *Standby `json:"standby,omitempty"`
	// Primary is the standby's primary (check --primary): its side of the
	// standby checks.
	Primary *Primary `json:"primary,omitempty"`
}

// Section names a part of a snapshot that is read by one query, so a check
// can say which parts it needs and be "not checked" when one is unreadable.
type Section string

// Sections of the publisher snapshot.
const (
	PubSettings     Section = "publisher settings (pg_settings)"
	PubSlots        Section = "publisher slots (pg_replication_slots)"
	PubSlotStats    Section = "publisher slot statistics (pg_stat_replication_slots)"
	PubWalsenders   Section = "publisher walsenders (pg_stat_replication)"
	PubPublications Section = "publications (pg_publication, pg_publication_tables)"
	PubTables       Section = "published tables (pg_class, pg_index, pg_attribute)"
)

// server is the snapshot the section belongs to: a check's Side, or
// "primary".
func (s Section) server() Side {
	switch s {
	case PubSettings, PubSlots, PubSlotStats, PubWalsenders, PubPublications, PubTables:
		return PublisherSide
	case StandbySettings, StandbySlots, StandbyReceiver:
		return StandbySide
	case PrimarySettings, PrimarySlots, PrimaryWalsenders, PrimaryWAL:
		return primaryServer
	}
	return SubscriberSide
}

// Sections of the subscriber snapshot.
const (
	SubSettings      Section = "subscriber settings (pg_settings)"
	SubSubscriptions Section = "subscriptions (pg_subscription)"
	SubWorkers       Section = "subscription workers (pg_stat_subscription)"
	SubStats         Section = "subscription statistics (pg_stat_subscription_stats)"
	SubRels          Section = "subscribed tables (pg_subscription_rel)"
	SubTables        Section = "subscriber tables (pg_class, pg_index, pg_attribute)"
	SubTriggers      Section = "subscriber triggers (pg_trigger)"
	SubRowCosts      Section = "subscriber per-row costs (pg_constraint, pg_attrdef, pg_depend)"
)

// Publisher is what ReadPublisher read from the publisher's database.
type Publisher struct {
	Version    pgversion.Version `json:"version"`
	Database   string            `json:"database"`
	Taken      time.Time         `json:"taken"` // the server's now() when reading began
	InRecovery bool              `json:"in_recovery"`
	// CurrentLSN is pg_current_wal_lsn(), or the replay position on a standby.
	CurrentLSN lsn.LSN  `json:"current_lsn"`
	Settings   Settings `json:"settings"`
	// Slots are all replication slots of the server (every database).
	Slots []Slot `json:"slots"`
	// Walsenders is the number of rows in pg_stat_replication (physical and
	// logical walsenders, including table synchronisation copies).
	Walsenders   int           `json:"walsenders"`
	Publications []Publication `json:"publications"`
	// Tables are the tables some publication of this database publishes, as
	// pg_publication_tables lists them (leaf partitions unless the
	// publication publishes via the partition root), plus the partition roots
	// of published partitions (with no Published entries of their own).
	Tables []Table `json:"tables"`
	// Unreadable maps a section that could not be read to why, e.g.
	// "needs pg_read_all_stats (pg_monitor)".
	Unreadable map[Section]string `json:"unreadable,omitempty"`
}

// Sections of the standby snapshot.
const (
	StandbySettings Section = "standby settings (pg_settings)"
	StandbySlots    Section = "standby slots (pg_replication_slots)"
	StandbyReceiver Section = "standby WAL receiver (pg_stat_wal_receiver)"
)

// Sections of the primary snapshot (check --primary).
const (
	PrimarySettings   Section = "primary settings (pg_settings)"
	PrimarySlots      Section = "primary slots (pg_replication_slots)"
	PrimaryWalsenders Section = "primary walsenders (pg_stat_replication)"
	PrimaryWAL        Section = "primary WAL statistics (pg_stat_wal)"
)

// Standby is what ReadStandby read from a physical standby of the
// publisher: what decides whether the publisher's logical slots survive a
// failover to it (17+).
type Standby struct {
	Version    pgversion.Version `json:"version"`
	Taken      time.Time         `json:"taken"`
	InRecovery bool              `json:"in_recovery"`
	Settings   Settings          `json:"settings"`
	// ConninfoDBName says whether primary_conninfo names a database (slot
	// synchronisation needs one); nil when it could not be read. The
	// conninfo itself is not kept: it may hold a password.
	ConninfoDBName *bool `json:"conninfo_dbname,omitempty"`
	// Slots are the standby's slots; synced ones are copies of the
	// primary's failover slots (17+).
	Slots []Slot `json:"slots"`
	// Database is the database the standby was read in.
	Database string `json:"database,omitempty"`
	// ConninfoAppName is the application_name primary_conninfo gives the
	// WAL receiver ("" when it gives none or could not be read): the name
	// the primary's pg_stat_replication and synchronous_standby_names know
	// the standby by. Nothing else of the conninfo is kept.
	ConninfoAppName string `json:"conninfo_application_name,omitempty"`
	// Receiver is the WAL receiver's pg_stat_wal_receiver row; nil when no
	// receiver runs or it was not read.
	Receiver *Receiver `json:"receiver,omitempty"`
	// SystemID is pg_control_system().system_identifier ("" when the role
	// may not run it): a standby has its primary's.
	SystemID   string             `json:"system_identifier,omitempty"`
	Unreadable map[Section]string `json:"unreadable,omitempty"`
}

// ApplicationName is the name the standby's WAL receiver gives the primary:
// primary_conninfo's application_name, else cluster_name, else
// "walreceiver" (the receiver's fallback_application_name).
func (sb *Standby) ApplicationName() string {
	if sb.ConninfoAppName != "" {
		return sb.ConninfoAppName
	}
	if v := sb.Settings["cluster_name"].Value; v != "" {
		return v
	}
	return "walreceiver"
}

// SlotName is the primary's slot the standby streams from: the receiver's
// slot_name, else primary_slot_name ("" for none).
func (sb *Standby) SlotName() string {
	if sb.Receiver != nil && sb.Receiver.Slot != "" {
		return sb.Receiver.Slot
	}
	return sb.Settings["primary_slot_name"].Value
}

// Receiver is the standby's WAL receiver (pg_stat_wal_receiver).
type Receiver struct {
	PID        int    `json:"pid"`
	Status     string `json:"status"` // streaming, starting, waiting, ...
	SenderHost string `json:"sender_host,omitempty"`
	SenderPort int    `json:"sender_port,omitempty"`
	Slot       string `json:"slot,omitempty"`
}

// Primary is what ReadPrimary read from a physical standby's primary.
type Primary struct {
	Version    pgversion.Version `json:"version"`
	Database   string            `json:"database"`
	Taken      time.Time         `json:"taken"`
	InRecovery bool              `json:"in_recovery"`
	CurrentLSN lsn.LSN           `json:"current_lsn"`
	Settings   Settings          `json:"settings"`
	// Slots are all replication slots of the primary.
	Slots []Slot `json:"slots"`
	// Walsenders are the rows of pg_stat_replication.
	Walsenders []Walsender `json:"walsenders"`
	// WAL is pg_stat_wal (14+); nil when not read.
	WAL *WALStats `json:"wal,omitempty"`
	// SystemID is as Standby.SystemID.
	SystemID   string             `json:"system_identifier,omitempty"`
	Unreadable map[Section]string `json:"unreadable,omitempty"`
}

// Walsender is one row of the primary's pg_stat_replication.
type Walsender struct {
	PID             int    `json:"pid"`
	ApplicationName string `json:"application_name"`
	State           string `json:"state"`      // streaming, catchup, backup, ...
	SyncState       string `json:"sync_state"` // async, potential, sync, quorum
	// Slot is the slot the walsender streams from ("" for none), and
	// Logical whether that slot is a logical one.
	Slot    string `json:"slot,omitempty"`
	Logical bool   `json:"logical,omitempty"`
	// XminAge is age(backend_xmin): the xmin the standby's feedback holds
	// when it streams without a slot; -1 when NULL.
	XminAge int64 `json:"xmin_age"`
	// WriteLag, FlushLag and ReplayLag are the lag columns in seconds; nil
	// when NULL.
	WriteLag  *float64 `json:"write_lag,omitempty"`
	FlushLag  *float64 `json:"flush_lag,omitempty"`
	ReplayLag *float64 `json:"replay_lag,omitempty"`
}

// WALStats is the primary's pg_stat_wal row: counters since StatsReset.
type WALStats struct {
	Records    int64      `json:"wal_records"`
	FPI        int64      `json:"wal_fpi"`
	Bytes      int64      `json:"wal_bytes"`
	StatsReset *time.Time `json:"stats_reset,omitempty"`
}

// Subscriber is what ReadSubscriber read from the subscriber's database.
type Subscriber struct {
	Version  pgversion.Version `json:"version"`
	Database string            `json:"database"`
	Taken    time.Time         `json:"taken"`
	Settings Settings          `json:"settings"`
	// Subscriptions are the subscriptions of this database.
	Subscriptions []Subscription `json:"subscriptions"`
	// OtherWorkers are the running workers of subscriptions in other
	// databases: they take from the same server-wide limits (see Limits).
	OtherWorkers []Worker `json:"other_workers,omitempty"`
	// Tables are the local tables the subscriptions receive, with their
	// partitions and partition ancestors.
	Tables     []Table            `json:"tables"`
	Unreadable map[Section]string `json:"unreadable,omitempty"`
}

// Slot is one row of pg_replication_slots.
type Slot struct {
	Name      string `json:"name"`
	Plugin    string `json:"plugin,omitempty"`
	Type      string `json:"type"` // "logical" or "physical"
	Database  string `json:"database,omitempty"`
	Temporary bool   `json:"temporary"`
	Active    bool   `json:"active"`
	// Failover (17+): the slot is synchronised to standbys that ask for it;
	// Synced (17+, on a standby): the slot is such a copy.
	Failover bool `json:"failover,omitempty"`
	Synced   bool `json:"synced,omitempty"`
	// XminAge and CatalogXminAge are age(xmin) and age(catalog_xmin) in
	// transactions; -1 when NULL.
	XminAge           int64   `json:"xmin_age"`
	CatalogXminAge    int64   `json:"catalog_xmin_age"`
	RestartLSN        lsn.LSN `json:"restart_lsn"`
	ConfirmedFlushLSN lsn.LSN `json:"confirmed_flush_lsn"`
	// WALStatus is reserved, extended, unreserved, lost or "" (13+).
	WALStatus string `json:"wal_status"`
	// SafeWALSize is safe_wal_size in bytes; -1 when NULL (no
	// max_slot_wal_keep_size).
	SafeWALSize int64 `json:"safe_wal_size"`
	// InactiveSince is set on 17+ for an inactive slot.
	InactiveSince *time.Time `json:"inactive_since,omitempty"`
	// InvalidationReason is set on 17+ for an invalidated slot.
	InvalidationReason string `json:"invalidation_reason,omitempty"`
	// Stats is the slot's pg_stat_replication_slots row (14+, logical slots).
	Stats *SlotStats `json:"stats,omitempty"`
}

// Retained is how many bytes of WAL the slot keeps: current - restart_lsn.
func (s Slot) Retained(current lsn.LSN) int64 {
	if s.RestartLSN == 0 || current < s.RestartLSN {
		return 0
	}
	return current.Sub(s.RestartLSN)
}

// SlotStats is one row of pg_stat_replication_slots; counters run since
// StatsReset (nil = since the slot was created).
type SlotStats struct {
	SpillTxns   int64      `json:"spill_txns"`
	SpillCount  int64      `json:"spill_count"`
	SpillBytes  int64      `json:"spill_bytes"`
	StreamTxns  int64      `json:"stream_txns"`
	StreamCount int64      `json:"stream_count"`
	StreamBytes int64      `json:"stream_bytes"`
	TotalTxns   int64      `json:"total_txns"`
	TotalBytes  int64      `json:"total_bytes"`
	StatsReset  *time.Time `json:"stats_reset,omitempty"`
}

// Publication is one row of pg_publication.
type Publication struct {
	Name      string `json:"name"`
	AllTables bool   `json:"all_tables"`
	Insert    bool   `json:"insert"`
	Update    bool   `json:"update"`
	Delete    bool   `json:"delete"`
	Truncate  bool   `json:"truncate"`
	ViaRoot   bool   `json:"via_root"` // publish_via_partition_root
}

// PubEntry is one table in one publication (a row of pg_publication_tables).
type PubEntry struct {
	Publication string `json:"publication"`
	// Columns are the published columns (the column list, or every published
	// column when there is none).
	Columns    []string `json:"columns"`
	ColumnList bool     `json:"column_list"`          // an explicit column list (15+)
	RowFilter  string   `json:"row_filter,omitempty"` // 15+
}

// Table is a table on either side, with what the checks need about it.
type Table struct {
	OID    uint32 `json:"oid"`
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Kind is "table" or "partitioned table".
	Kind string `json:"kind"`
	// PartitionOf is the qualified name of the partition root when the table
	// is a partition (spelled as the root's Qualified).
	PartitionOf string `json:"partition_of,omitempty"`
	// Parent is the OID of the partitioned table the table is a partition
	// of (pg_inherits); 0 when it is not a partition, or in a snapshot
	// written before it was read.
	Parent uint32 `json:"parent,omitempty"`
	// Strategy is the partitioning strategy (hash, range, list) of the table
	// when it is partitioned, or of its root when it is a partition.
	Strategy string `json:"strategy,omitempty"`
	// Partitions counts the leaf partitions of a partitioned table.
	Partitions int `json:"partitions,omitempty"`
	// ReplicaIdentity is default, nothing, full or index.
	ReplicaIdentity string    `json:"replica_identity"`
	Columns         []Column  `json:"columns"`
	Indexes         []Index   `json:"indexes"` // in OID order, as the server lists them
	Triggers        []Trigger `json:"triggers,omitempty"`
	// RowCosts is what each row written costs beyond the row and its btree
	// entries (subscriber side only); nil when not read (the publisher's
	// tables, a section not readable, or a snapshot written before it was
	// read): not read is not "none".
	RowCosts *RowCosts `json:"row_costs,omitempty"`
	Rows     float64   `json:"rows"` // reltuples; -1 when never analysed
	// Bytes is an estimate of the table's size: relpages (as of its last
	// VACUUM, ANALYZE or CREATE INDEX; 0 before any) times the block size,
	// read without a lock where pg_relation_size would take one.
	Bytes     int64      `json:"bytes"`
	Inserts   int64      `json:"inserts"`
	Updates   int64      `json:"updates"`
	Deletes   int64      `json:"deletes"`
	Published []PubEntry `json:"published,omitempty"` // publisher side only
}

// Qualified is schema.name for prose, each part quoted as quote_ident does.
func (t Table) Qualified() string { return quote.Qualified(t.Schema, t.Name) }

// Column is a user column.
type Column struct {
	Num        int    `json:"num"`
	Name       string `json:"name"`
	Type       string `json:"type"` // format_type(atttypid, atttypmod)
	NotNull    bool   `json:"not_null"`
	HasDefault bool   `json:"has_default,omitempty"` // a default or an identity column
	Generated  string `json:"generated,omitempty"`   // "s" for a stored generated column
}

// Index is an index of a table.
type Index struct {
	OID             uint32 `json:"oid"`
	Name            string `json:"name"`
	AM              string `json:"am"` // btree, hash, gist, ...
	Primary         bool   `json:"primary"`
	Unique          bool   `json:"unique"`
	ReplicaIdentity bool   `json:"replica_identity"` // indisreplident
	Immediate       bool   `json:"immediate"`        // not DEFERRABLE
	Valid           bool   `json:"valid"`
	Live            bool   `json:"live"`                // not being dropped
	Predicate       string `json:"predicate,omitempty"` // a partial index's WHERE clause
	// Keys are the key columns in order (INCLUDE columns are not keys).
	Keys []IndexKey `json:"keys"`
	// Attributes are all index columns (keys and INCLUDE) with their stored
	// types.
	Attributes []IndexAttribute `json:"attributes"`
	// GetTuple reports whether the access method can return single tuples
	// (amgettuple; pg_index_has_property(index, 'index_scan')).
	GetTuple   bool   `json:"gettuple"`
	Definition string `json:"definition"` // pg_get_indexdef
	// Constraint reports whether a constraint depends on the index (a
	// primary key, unique or exclusion constraint, or a foreign key that
	// references it): dropping it would drop or break the constraint.
	Constraint bool `json:"constraint,omitempty"`
	// Scans is idx_scan of pg_stat_all_indexes: the index scans started on
	// it since statistics were reset; nil when not read (older snapshots).
	Scans *int64 `json:"scans,omitempty"`
}

// IndexKey is one key column of an index.
type IndexKey struct {
	// Attnum is the table column number; 0 for an expression.
	Attnum int    `json:"attnum"`
	Column string `json:"column,omitempty"` // the column's name when Attnum > 0
	Expr   string `json:"expr,omitempty"`   // the expression when Attnum is 0
	// CompareTranslate reports whether the key's operator family has a GiST
	// compare-type translation function (support procedure 12), which lets
	// PostgreSQL 18 find its equality strategy.
	CompareTranslate bool `json:"compare_translate,omitempty"`
}

// IndexAttribute is an index column's stored type.
type IndexAttribute struct {
	Type string `json:"type"`
	// Equality reports whether the type has a default btree or hash
	// equality operator (what the type cache looks up).
	Equality bool `json:"equality"`
}

// Trigger is a user trigger on a table.
type Trigger struct {
	Name string `json:"name"`
	// Enabled is origin, always, replica or disabled.
	Enabled  string   `json:"enabled"`
	Function string   `json:"function"`
	Row      bool     `json:"row"` // FOR EACH ROW
	Events   []string `json:"events"`
}

// Subscription is a subscription of the subscriber's database.
type Subscription struct {
	OID          uint32   `json:"oid"`
	Name         string   `json:"name"`
	Enabled      bool     `json:"enabled"`
	Slot         string   `json:"slot"`
	Publications []string `json:"publications"`
	// Binary and Streaming exist from 14; Streaming is off, on or parallel.
	Binary         bool   `json:"binary"`
	Streaming      string `json:"streaming"`
	DisableOnError bool   `json:"disable_on_error"` // 15+
	Origin         string `json:"origin,omitempty"` // 16+
	// Workers are the running workers (pg_stat_subscription rows with a pid).
	Workers []Worker `json:"workers"`
	// Stats is the pg_stat_subscription_stats row (15+).
	Stats *SubscriptionStats `json:"stats,omitempty"`
	// Relations are the subscription's tables (pg_subscription_rel).
	Relations []SubscriptionRel `json:"relations"`
}

// Worker is a running logical replication worker of a subscription.
type Worker struct {
	PID int `json:"pid"`
	// Type is apply, parallel apply or table synchronization.
	Type     string `json:"type"`
	Relation string `json:"relation,omitempty"` // tablesync: the table
}

// SubscriptionStats is a pg_stat_subscription_stats row; counters run since
// StatsReset (nil = since the subscription was created).
type SubscriptionStats struct {
	ApplyErrors int64 `json:"apply_error_count"`
	SyncErrors  int64 `json:"sync_error_count"`
	// Conflicts maps a conflict counter (18+: insert_exists, ...) to its count.
	Conflicts  map[string]int64 `json:"conflicts,omitempty"`
	StatsReset *time.Time       `json:"stats_reset,omitempty"`
}

// SubscriptionRel is one table of a subscription with its state.
type SubscriptionRel struct {
	// Table is the local table's qualified name, spelled as Table.Qualified
	// spells it.
	Table string `json:"table"`
	// OID is the local table's OID (srrelid); Schema and Name are its
	// names, unquoted (what the publisher's table is matched by). All
	// three are empty in a snapshot written before they were read.
	OID    uint32 `json:"oid,omitempty"`
	Schema string `json:"schema,omitempty"`
	Name   string `json:"name,omitempty"`
	// State is the srsubstate letter: i, d, f, s or r.
	State string `json:"state"`
}

// Settings maps a server setting's name to its pg_settings value and unit.
type Settings map[string]Setting

// Setting is one pg_settings row: setting (in Unit) and unit.
type Setting struct {
	Value string `json:"value"`
	Unit  string `json:"unit,omitempty"`
}

// Int returns a numeric setting in its own unit.
func (s Settings) Int(name string) (int64, bool) {
	v, ok := s[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	return n, err == nil
}

// Bytes returns a memory or size setting in bytes; -1 stays -1.
func (s Settings) Bytes(name string) (int64, bool) {
	n, ok := s.Int(name)
	if !ok || n < 0 {
		return n, ok
	}
	mult := map[string]int64{"": 1, "B": 1, "kB": 1 << 10, "8kB": 8 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
	m, ok := mult[s[name].Unit]
	if !ok {
		return 0, false
	}
	return n * m, true
}

// Show prints a setting as SHOW would, roughly: "64MB", "-1", "logical".
func (s Settings) Show(name string) string {
	v, ok := s[name]
	if !ok {
		return "?"
	}
	if n, ok := s.Bytes(name); ok && v.Unit != "" && n >= 0 {
		return showBytes(n)
	}
	return v.Value + unitSuffix(v.Unit)
}

func unitSuffix(u string) string {
	switch u {
	case "", "B", "kB", "8kB", "MB", "GB", "TB":
		return ""
	}
	return u
}

// showBytes prints bytes in PostgreSQL's binary units (64MB, 1GB, 512kB).
func showBytes(n int64) string {
	for _, u := range []struct {
		s string
		m int64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}} {
		if n >= u.m && n%u.m == 0 {
			return fmt.Sprintf("%d%s", n/u.m, u.s)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// qualify is quote.Qualified, kept for the read code that still matches
// pg_publication_tables rows by name (read_publisher.go); it goes when that
// code matches relations by OID.
func qualify(schema, name string) string { return quote.Qualified(schema, name) }
