package audit

import (
	"time"

	"github.com/lagscope/lagscope/internal/pgversion"
)

// taken is the fixtures' snapshot time.
var taken = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// btree is a valid, live btree index on plain columns.
func btree(oid uint32, name string, cols ...string) Index {
	ix := Index{OID: oid, Name: name, AM: "btree", Immediate: true, Valid: true, Live: true, GetTuple: true}
	for i, c := range cols {
		ix.Keys = append(ix.Keys, IndexKey{Attnum: i + 1, Column: c})
		ix.Attributes = append(ix.Attributes, IndexAttribute{Type: "bigint", Equality: true})
	}
	return ix
}

// pkey is a primary key on cols.
func pkey(oid uint32, name string, cols ...string) Index {
	ix := btree(oid, name, cols...)
	ix.Primary, ix.Unique = true, true
	return ix
}

// orders is a table with a primary key on id.
func orders() Table {
	return Table{OID: 16384, Schema: "public", Name: "orders", Kind: "table", ReplicaIdentity: "default",
		Columns: []Column{{Num: 1, Name: "id", Type: "bigint", NotNull: true}, {Num: 2, Name: "customer", Type: "integer"},
			{Num: 3, Name: "note", Type: "text"}},
		Indexes: []Index{pkey(16390, "orders_pkey", "id")},
		Rows:    50_000, Bytes: 4_000_000, Inserts: 50_000, Updates: 1_000, Deletes: 10}
}

// healthy is a publisher/subscriber pair (PostgreSQL 16) with nothing to
// report, not even an info finding.
func healthy() Snapshots {
	pubT := orders()
	pubT.Published = []PubEntry{{Publication: "pub1", Columns: []string{"id", "customer", "note"}}}
	subT := orders()
	subT.Inserts, subT.Updates, subT.Deletes = 0, 0, 0
	return Snapshots{
		Publisher: &Publisher{
			Version: pgversion.Version{Major: 16, Minor: 14}, Database: "app", Taken: taken, CurrentLSN: 0x3000000,
			Settings: Settings{
				"wal_level": {Value: "logical"}, "max_wal_senders": {Value: "10"}, "max_replication_slots": {Value: "10"},
				"max_slot_wal_keep_size": {Value: "10240", Unit: "MB"}, "max_wal_size": {Value: "1024", Unit: "MB"},
				"logical_decoding_work_mem": {Value: "65536", Unit: "kB"}, "autovacuum_freeze_max_age": {Value: "200000000"},
			},
			Slots: []Slot{{Name: "sub1", Plugin: "pgoutput", Type: "logical", Database: "app", Active: true,
				XminAge: -1, CatalogXminAge: 120, RestartLSN: 0x2FFF000, ConfirmedFlushLSN: 0x3000000, WALStatus: "reserved",
				SafeWALSize: 10 << 30, Stats: &SlotStats{TotalTxns: 100, TotalBytes: 1_000_000}}},
			Walsenders:   1,
			Publications: []Publication{{Name: "pub1", Insert: true, Update: true, Delete: true, Truncate: true}},
			Tables:       []Table{pubT},
		},
		Subscriber: &Subscriber{
			Version: pgversion.Version{Major: 16, Minor: 14}, Database: "app", Taken: taken,
			Settings: Settings{
				"max_logical_replication_workers": {Value: "4"}, "max_sync_workers_per_subscription": {Value: "2"},
				"max_worker_processes": {Value: "8"}, "max_replication_slots": {Value: "10"},
				"max_parallel_apply_workers_per_subscription": {Value: "2"},
			},
			Subscriptions: []Subscription{{OID: 16400, Name: "sub1", Enabled: true, Slot: "sub1", Publications: []string{"pub1"},
				Binary: true, Streaming: "on", Workers: []Worker{{PID: 4242, Type: "apply"}},
				Stats: &SubscriptionStats{}, Relations: []SubscriptionRel{{Table: "public.orders", State: "r"}}}},
			Tables: []Table{subT},
		},
	}
}

// withVersion sets both sides' major version.
func withVersion(s Snapshots, pub, sub int) Snapshots {
	if s.Publisher != nil {
		s.Publisher.Version = pgversion.Version{Major: pub}
	}
	if s.Subscriber != nil {
		s.Subscriber.Version = pgversion.Version{Major: sub}
	}
	return s
}

// fullEvents makes the publisher's orders REPLICA IDENTITY FULL without a
// key, and the subscriber's table keyless with the given indexes: seed 001's
// REPLICA IDENTITY FULL trap.
func fullEvents(s Snapshots, subIndexes ...Index) Snapshots {
	p := &s.Publisher.Tables[0]
	p.ReplicaIdentity, p.Indexes = "full", nil
	t := &s.Subscriber.Tables[0]
	t.Indexes = subIndexes
	return s
}
