package audit

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// want is an expected finding: its check, severity, and one of its objects.
type want struct {
	check  string
	sev    Severity
	object string
}

func (w want) String() string { return fmt.Sprintf("%s/%s %s", w.check, w.sev, w.object) }

func TestChecksOnHandBuiltSnapshots(t *testing.T) {
	ts := func(d time.Duration) *time.Time { x := taken.Add(-d); return &x }
	cases := []struct {
		name string
		make func() Snapshots
		want []want
	}{
		{"a healthy pair has no finding at all", healthy, nil},

		// publisher
		{"wal_level replica is an error", func() Snapshots {
			s := healthy()
			s.Publisher.Settings["wal_level"] = Setting{Value: "replica"}
			return s
		}, []want{{"wal-level", Error, "setting wal_level"}}},
		{"one free walsender is a warning", func() Snapshots {
			s := healthy()
			s.Publisher.Settings["max_wal_senders"] = Setting{Value: "2"}
			return s
		}, []want{{"wal-senders-headroom", Warning, "setting max_wal_senders"}}},
		{"no free walsender is an error", func() Snapshots {
			s := healthy()
			s.Publisher.Settings["max_wal_senders"] = Setting{Value: "1"}
			return s
		}, []want{{"wal-senders-headroom", Error, "setting max_wal_senders"}}},
		{"no free replication slot is an error", func() Snapshots {
			s := healthy()
			s.Publisher.Settings["max_replication_slots"] = Setting{Value: "1"}
			return s
		}, []want{{"slots-headroom", Error, "setting max_replication_slots"}}},
		{"an inactive slot of a disabled subscription is a warning, and the subscription an error", func() Snapshots {
			s := healthy()
			s.Publisher.Slots[0].Active = false
			s.Subscriber.Subscriptions[0].Enabled = false
			s.Subscriber.Subscriptions[0].Workers = nil
			return s
		}, []want{{"inactive-slot", Warning, "slot sub1"}, {"subscription-stopped", Error, "subscription sub1"}}},
		{"an inactive temporary slot is not reported", func() Snapshots {
			s := healthy()
			s.Publisher.Slots = append(s.Publisher.Slots, Slot{Name: "pg_16400_sync_16384", Type: "logical", Database: "app", Temporary: true, CatalogXminAge: 5})
			return s
		}, nil},
		{"a lost slot is an error and not also an inactive one", func() Snapshots {
			s := healthy()
			s.Publisher.Slots[0].Active, s.Publisher.Slots[0].WALStatus = false, "lost"
			return s
		}, []want{{"slot-wal-status", Error, "slot sub1"}}},
		{"an unreserved slot is an error", func() Snapshots {
			s := healthy()
			s.Publisher.Slots[0].WALStatus = "unreserved"
			return s
		}, []want{{"slot-wal-status", Error, "slot sub1"}}},
		{"an extended slot is a warning", func() Snapshots {
			s := healthy()
			s.Publisher.Slots[0].WALStatus = "extended"
			return s
		}, []want{{"slot-wal-status", Warning, "slot sub1"}}},
		{"a slot invalidated on 17 is an error", func() Snapshots {
			s := withVersion(healthy(), 17, 17)
			s.Publisher.Slots[0].InvalidationReason = "rows_removed"
			s.Publisher.Slots[0].Active = false
			return s
		}, []want{{"slot-wal-status", Error, "slot sub1"}}},
		{"unlimited max_slot_wal_keep_size with a slot is a warning", func() Snapshots {
			s := healthy()
			s.Publisher.Settings["max_slot_wal_keep_size"] = Setting{Value: "-1", Unit: "MB"}
			return s
		}, []want{{"slot-wal-keep-size", Warning, "setting max_slot_wal_keep_size"}}},
		{"a catalog_xmin past half of autovacuum_freeze_max_age is a warning", func() Snapshots {
			s := healthy()
			s.Publisher.Slots[0].CatalogXminAge = 120_000_000
			return s
		}, []want{{"old-catalog-xmin", Warning, "slot sub1"}}},
		{"a catalog_xmin past autovacuum_freeze_max_age is an error", func() Snapshots {
			s := healthy()
			s.Publisher.Slots[0].CatalogXminAge = 250_000_000
			return s
		}, []want{{"old-catalog-xmin", Error, "slot sub1"}}},
		{"spilling 40% of the decoded bytes is a warning", func() Snapshots {
			s := healthy()
			s.Publisher.Slots[0].Stats = &SlotStats{SpillTxns: 3, SpillCount: 12, SpillBytes: 400_000, TotalTxns: 100, TotalBytes: 1_000_000}
			return s
		}, []want{{"decoding-spill", Warning, "slot sub1"}}},
		{"spilling 1% of the decoded bytes is info", func() Snapshots {
			s := healthy()
			s.Publisher.Slots[0].Stats = &SlotStats{SpillTxns: 1, SpillCount: 1, SpillBytes: 10_000, TotalTxns: 100, TotalBytes: 1_000_000}
			return s
		}, []want{{"decoding-spill", Info, "slot sub1"}}},
		{"a keyless table published for updates that had updates is an error", func() Snapshots {
			s := healthy()
			s.Publisher.Tables[0].Indexes = nil
			return s
		}, []want{{"no-replica-identity", Error, "table public.orders"}}},
		{"a published table whose identity index is gone has no identity, primary key or not", func() Snapshots {
			s := healthy()
			s.Publisher.Tables[0].ReplicaIdentity = "index"
			return s
		}, []want{{"no-replica-identity", Error, "table public.orders"}}},
		{"a keyless table published for inserts only is fine", func() Snapshots {
			s := healthy()
			s.Publisher.Tables[0].Indexes = nil
			s.Publisher.Publications[0].Update, s.Publisher.Publications[0].Delete = false, false
			return s
		}, nil},
		{"REPLICA IDENTITY FULL on a table with a primary key is a warning", func() Snapshots {
			s := healthy()
			s.Publisher.Tables[0].ReplicaIdentity = "full"
			return s
		}, []want{{"replica-identity-full", Warning, "table public.orders"}, {"replica-identity-mismatch", Info, "table public.orders"}}},
		{"a row filter on the identity column is info", func() Snapshots {
			s := healthy()
			s.Publisher.Tables[0].Published[0].RowFilter = "(id > 100)"
			return s
		}, []want{{"row-filter", Info, "publication pub1"}}},
		{"a row filter on a column outside the identity with updates published is an error", func() Snapshots {
			s := healthy()
			s.Publisher.Tables[0].Published[0].RowFilter = "((customer > 1) AND (note <> 'id'::text))"
			return s
		}, []want{{"row-filter", Error, "table public.orders"}}},
		{"two logical slots in one database are info", func() Snapshots {
			s := healthy()
			s.Publisher.Slots = append(s.Publisher.Slots, Slot{Name: "debezium", Type: "logical", Database: "app", Active: true, WALStatus: "reserved"})
			return s
		}, []want{{"slots-per-database", Info, "slot debezium"}}},
		{"a partitioned table published as all its partitions is info", func() Snapshots {
			s := healthy()
			root := Table{OID: 1, Schema: "public", Name: "m", Kind: "partitioned table", Strategy: "hash", Partitions: 2, ReplicaIdentity: "default"}
			p0 := Table{OID: 2, Schema: "public", Name: "m_p0", Kind: "table", PartitionOf: "public.m", Strategy: "hash", ReplicaIdentity: "default",
				Indexes: []Index{pkey(3, "m_p0_pkey", "id")}, Published: []PubEntry{{Publication: "pub1"}}}
			p1 := p0
			p1.OID, p1.Name, p1.Indexes = 4, "m_p1", []Index{pkey(5, "m_p1_pkey", "id")}
			s.Publisher.Tables = append(s.Publisher.Tables, root, p0, p1)
			return s
		}, []want{{"partitioned-publication", Info, "table public.m"},
			{"column-mismatch", Error, "subscription sub1"}, {"column-mismatch", Error, "subscription sub1"}}},

		// subscriber
		{"REPLICA IDENTITY FULL without a usable index on 16 is an error", func() Snapshots {
			partial := btree(16500, "orders_partial", "id")
			partial.Predicate = "id > 0"
			expr := btree(16501, "orders_expr", "id")
			expr.Keys[0] = IndexKey{Expr: "(id + 0)"}
			return fullEvents(healthy(), partial, expr)
		}, []want{{"full-identity-no-index", Error, "table public.orders"}, {"replica-identity-full", Info, "table public.orders"},
			{"extra-subscriber-indexes", Info, "table public.orders"}}},
		{"REPLICA IDENTITY FULL with a btree on id on 16 is fine", func() Snapshots {
			return fullEvents(healthy(), btree(16500, "orders_id", "id"))
		}, []want{{"replica-identity-full", Info, "table public.orders"}}},
		{"REPLICA IDENTITY FULL with only a hash index is an error on 16", func() Snapshots {
			h := btree(16500, "orders_hash", "id")
			h.AM = "hash"
			return fullEvents(healthy(), h)
		}, []want{{"full-identity-no-index", Error, "table public.orders"}, {"replica-identity-full", Info, "table public.orders"},
			{"extra-subscriber-indexes", Info, "table public.orders"}}},
		{"REPLICA IDENTITY FULL with only a hash index is fine on 17", func() Snapshots {
			h := btree(16500, "orders_hash", "id")
			h.AM = "hash"
			return withVersion(fullEvents(healthy(), h), 17, 17)
		}, []want{{"replica-identity-full", Info, "table public.orders"}}},
		{"REPLICA IDENTITY FULL with a btree on id is still an error on a 15 subscriber", func() Snapshots {
			return withVersion(fullEvents(healthy(), btree(16500, "orders_id", "id")), 16, 15)
		}, []want{{"full-identity-no-index", Error, "table public.orders"}, {"replica-identity-full", Info, "table public.orders"},
			{"extra-subscriber-indexes", Info, "table public.orders"}}},
		{"a subscriber primary key serves REPLICA IDENTITY FULL on every version", func() Snapshots {
			s := withVersion(healthy(), 15, 15)
			s.Publisher.Tables[0].ReplicaIdentity, s.Publisher.Tables[0].Indexes = "full", nil
			return s
		}, []want{{"replica-identity-full", Info, "table public.orders"}, {"replica-identity-mismatch", Info, "table public.orders"}}},
		{"three indexes beyond the primary key are a warning", func() Snapshots {
			s := healthy()
			t := &s.Subscriber.Tables[0]
			t.Indexes = append(t.Indexes, btree(16501, "o_a", "customer"), btree(16502, "o_b", "note"), btree(16503, "o_c", "customer", "note"))
			return s
		}, []want{{"extra-subscriber-indexes", Warning, "table public.orders"}}},
		{"an ENABLE ALWAYS trigger is a warning", func() Snapshots {
			s := healthy()
			s.Subscriber.Tables[0].Triggers = []Trigger{{Name: "audit", Enabled: "always", Function: "audit()", Row: true, Events: []string{"INSERT"}},
				{Name: "local_only", Enabled: "origin", Function: "f()", Row: true, Events: []string{"UPDATE"}}}
			return s
		}, []want{{"replica-triggers", Warning, "trigger audit"}}},
		{"an enabled subscription without an apply worker is an error", func() Snapshots {
			s := healthy()
			s.Subscriber.Subscriptions[0].Workers = nil
			return s
		}, []want{{"subscription-stopped", Error, "subscription sub1"}}},
		{"past apply errors with a running worker are a warning", func() Snapshots {
			s := healthy()
			s.Subscriber.Subscriptions[0].Stats = &SubscriptionStats{ApplyErrors: 3, StatsReset: ts(time.Hour)}
			return s
		}, []want{{"apply-errors", Warning, "subscription sub1"}}},
		{"apply errors without a running worker are an error", func() Snapshots {
			s := healthy()
			s.Subscriber.Subscriptions[0].Stats = &SubscriptionStats{ApplyErrors: 7}
			s.Subscriber.Subscriptions[0].Workers = nil
			return s
		}, []want{{"apply-errors", Error, "subscription sub1"}, {"subscription-stopped", Error, "subscription sub1"}}},
		{"conflicts on 18 are a warning", func() Snapshots {
			s := withVersion(healthy(), 18, 18)
			s.Subscriber.Subscriptions[0].Stats = &SubscriptionStats{Conflicts: map[string]int64{"update_missing": 4, "insert_exists": 0}}
			return s
		}, []want{{"apply-errors", Warning, "subscription sub1"}}},
		{"a table still copying is a warning", func() Snapshots {
			s := healthy()
			s.Subscriber.Subscriptions[0].Relations[0].State = "d"
			return s
		}, []want{{"tables-not-ready", Warning, "table public.orders"}}},
		{"text transfer and no streaming are info", func() Snapshots {
			s := healthy()
			s.Subscriber.Subscriptions[0].Binary, s.Subscriber.Subscriptions[0].Streaming = false, "off"
			return s
		}, []want{{"binary-transfer", Info, "subscription sub1"}, {"streaming-off", Info, "subscription sub1"}}},
		{"fewer workers than subscriptions plus sync workers is a warning", func() Snapshots {
			s := healthy()
			s.Subscriber.Settings["max_logical_replication_workers"] = Setting{Value: "2"}
			return s
		}, []want{{"worker-headroom", Warning, "setting max_logical_replication_workers"}}},
		{"fewer workers than enabled subscriptions is an error", func() Snapshots {
			s := healthy()
			s.Subscriber.Settings["max_logical_replication_workers"] = Setting{Value: "0"}
			return s
		}, []want{{"worker-headroom", Error, "setting max_logical_replication_workers"}, {"limits-in-use", Warning, "setting max_logical_replication_workers"}}},
		{"17: a slot that is not a failover slot, beside a standby's physical slot, is a warning", func() Snapshots {
			return withStandbySlot(withVersion(healthy(), 17, 17), false)
		}, []want{{"failover-safety", Warning, "slot sub1"}}},
		{"without any standby a slot that is not a failover slot has nothing to survive", func() Snapshots {
			return withVersion(healthy(), 18, 18)
		}, nil},
		{"18: a failover slot whose standby is not in synchronized_standby_slots is a warning naming it", func() Snapshots {
			s := withStandbySlot(withVersion(healthy(), 18, 18), true)
			delete(s.Publisher.Settings, "synchronized_standby_slots")
			return s
		}, []want{{"failover-safety", Warning, "setting synchronized_standby_slots"}}},
		{"18: a failover slot synced to a standby that synchronises slots passes", func() Snapshots {
			return withReadyStandby(withStandbySlot(withVersion(healthy(), 18, 18), true))
		}, []want{feedbackInfo}},
		{"18: a standby without sync_replication_slots is a warning naming the setting and the missing copy", func() Snapshots {
			s := withReadyStandby(withStandbySlot(withVersion(healthy(), 18, 18), true))
			s.Standby.Settings["sync_replication_slots"] = Setting{Value: "off"}
			return s
		}, []want{{"failover-safety", Warning, "setting sync_replication_slots (standby)"}, feedbackInfo}},
		{"18: a failover slot with no copy on the standby is a warning naming the slot", func() Snapshots {
			s := withReadyStandby(withStandbySlot(withVersion(healthy(), 18, 18), true))
			s.Standby.Slots = nil
			return s
		}, []want{{"failover-safety", Warning, "slot sub1"}, feedbackInfo}},
		{"18: a copy that is not ready yet is a warning naming the slot", func() Snapshots {
			s := withReadyStandby(withStandbySlot(withVersion(healthy(), 18, 18), true))
			s.Standby.Slots[0].Temporary = true
			return s
		}, []want{{"failover-safety", Warning, "slot sub1"}, feedbackInfo}},
		{"18: a standby's primary_conninfo without dbname is a warning", func() Snapshots {
			s := withReadyStandby(withStandbySlot(withVersion(healthy(), 18, 18), true))
			no := false
			s.Standby.ConninfoDBName = &no
			return s
		}, []want{{"failover-safety", Warning, "setting primary_conninfo (standby)"}, feedbackInfo}},
		{"16: a standby on a physical slot loses the logical slots in a failover", func() Snapshots {
			return withStandbySlot(withVersion(healthy(), 16, 16), false)
		}, []want{{"failover-safety", Warning, "slot sub1"}}},
		{"every logical replication worker in use, counting other databases', is a warning", func() Snapshots {
			s := healthy()
			s.Subscriber.Settings["max_logical_replication_workers"] = Setting{Value: "4"}
			s.Subscriber.Settings["max_sync_workers_per_subscription"] = Setting{Value: "0"}
			s.Subscriber.OtherWorkers = []Worker{{PID: 1, Type: "apply"}, {PID: 2, Type: "apply"}, {PID: 3, Type: "table synchronization"}}
			return s
		}, []want{{"limits-in-use", Warning, "setting max_logical_replication_workers"}}},
		{"18: every replication origin in use is a warning naming max_active_replication_origins", func() Snapshots {
			s := withVersion(healthy(), 18, 18)
			s.Subscriber.Settings["max_active_replication_origins"] = Setting{Value: "2"}
			s.Subscriber.Settings["max_sync_workers_per_subscription"] = Setting{Value: "1"}
			s.Subscriber.Subscriptions[0].Workers = append(s.Subscriber.Subscriptions[0].Workers, Worker{PID: 4243, Type: "table synchronization", Relation: "public.orders"})
			s.Subscriber.Subscriptions[0].Relations[0].State = "d"
			return s
		}, []want{{"limits-in-use", Warning, "setting max_active_replication_origins"}, {"limits-in-use", Info, "subscription sub1"}, {"tables-not-ready", Warning, "table public.orders"}}},
		{"before 18 the origins count against the subscriber's max_replication_slots", func() Snapshots {
			s := withVersion(healthy(), 15, 15)
			s.Subscriber.Settings["max_replication_slots"] = Setting{Value: "1"}
			s.Subscriber.Settings["max_sync_workers_per_subscription"] = Setting{Value: "0"}
			return s
		}, []want{{"limits-in-use", Warning, "setting max_replication_slots"}}},
		{"a hash-partitioned table under one subscription is info", func() Snapshots {
			s := healthy()
			root := Table{OID: 1, Schema: "public", Name: "m", Kind: "partitioned table", Strategy: "hash", Partitions: 2, ReplicaIdentity: "default"}
			p0 := Table{OID: 2, Schema: "public", Name: "m_p0", Kind: "table", PartitionOf: "public.m", Strategy: "hash", ReplicaIdentity: "default"}
			p1 := p0
			p1.OID, p1.Name = 3, "m_p1"
			s.Subscriber.Tables = append(s.Subscriber.Tables, root, p0, p1)
			sub := &s.Subscriber.Subscriptions[0]
			sub.Relations = append(sub.Relations, SubscriptionRel{Table: "public.m_p0", State: "r"}, SubscriptionRel{Table: "public.m_p1", State: "r"})
			return s
		}, []want{{"partitioned-one-subscription", Info, "table public.m"}}},

		// both
		{"a published column missing on the subscriber is an error", func() Snapshots {
			s := healthy()
			s.Subscriber.Tables[0].Columns = s.Subscriber.Tables[0].Columns[:2]
			return s
		}, []want{{"column-mismatch", Error, "table public.orders"}}},
		{"a different column type is a warning with text transfer", func() Snapshots {
			s := healthy()
			s.Subscriber.Subscriptions[0].Binary = false
			s.Subscriber.Tables[0].Columns[1].Type = "bigint"
			return s
		}, []want{{"column-mismatch", Warning, "table public.orders"}, {"binary-transfer", Info, "subscription sub1"}}},
		{"a different column type is an error with binary transfer", func() Snapshots {
			s := healthy()
			s.Subscriber.Tables[0].Columns[1].Type = "bigint"
			return s
		}, []want{{"column-mismatch", Error, "table public.orders"}}},
		{"a published table missing on the subscriber is an error", func() Snapshots {
			s := healthy()
			extra := orders()
			extra.Name, extra.Published = "invoices", []PubEntry{{Publication: "pub1", Columns: []string{"id"}}}
			s.Publisher.Tables = append(s.Publisher.Tables, extra)
			return s
		}, []want{{"column-mismatch", Error, "table public.invoices"}}},
		{"a subscriber key the publisher does not send is an error", func() Snapshots {
			s := healthy()
			s.Subscriber.Tables[0].Indexes = []Index{pkey(16390, "orders_pkey", "customer")}
			return s
		}, []want{{"replica-identity-mismatch", Error, "table public.orders"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			findings := map[string]Finding{}
			for _, r := range Run(c.make(), All) {
				for _, f := range r.Findings {
					key := f.Check + "/" + string(f.Severity)
					got = append(got, key)
					findings[key] = f
					if f.Found == "" || f.Why == "" || f.Fix == "" || len(f.Objects) == 0 {
						t.Errorf("%s: incomplete finding %+v", key, f)
					}
				}
			}
			var wantKeys []string
			for _, w := range c.want {
				wantKeys = append(wantKeys, w.check+"/"+string(w.sev))
			}
			sort.Strings(got)
			sort.Strings(wantKeys)
			if strings.Join(got, " ") != strings.Join(wantKeys, " ") {
				t.Fatalf("findings %v, want %v", got, wantKeys)
			}
			for _, w := range c.want {
				if f := findings[w.check+"/"+string(w.sev)]; !contains(f.Objects, w.object) {
					t.Errorf("%s: objects %v do not name %q", w, f.Objects, w.object)
				}
			}
		})
	}
}

func TestCheckStatuses(t *testing.T) {
	cases := []struct {
		name   string
		make   func() Snapshots
		check  string
		status Status
		reason string
	}{
		{"subscriber checks without a subscriber are not checked", func() Snapshots {
			s := healthy()
			s.Subscriber = nil
			return s
		}, "full-identity-no-index", StatusNotChecked, "needs --subscriber"},
		{"cross checks without a publisher are not checked", func() Snapshots {
			s := healthy()
			s.Publisher = nil
			return s
		}, "column-mismatch", StatusNotChecked, "needs --publisher"},
		{"a subscriber-only check runs without a publisher", func() Snapshots {
			s := healthy()
			s.Publisher = nil
			return s
		}, "extra-subscriber-indexes", StatusOK, ""},
		{"an unreadable section makes its checks not checked, saying what they need", func() Snapshots {
			s := healthy()
			s.Subscriber.Unreadable = map[Section]string{SubRels: "needs SELECT on pg_subscription_rel (permission denied)"}
			return s
		}, "tables-not-ready", StatusNotChecked, "needs SELECT on pg_subscription_rel"},
		{"spill on a 13 publisher is not applicable", func() Snapshots { return withVersion(healthy(), 13, 13) },
			"decoding-spill", StatusNotApplicable, "PostgreSQL 14+"},
		{"row filters on a 14 publisher are not applicable", func() Snapshots { return withVersion(healthy(), 14, 14) },
			"row-filter", StatusNotApplicable, "row filters are new in 15"},
		{"binary transfer from a 13 publisher is not applicable", func() Snapshots { return withVersion(healthy(), 13, 16) },
			"binary-transfer", StatusNotApplicable, "the publisher runs PostgreSQL 13"},
		{"apply error counters on a 14 subscriber are not applicable", func() Snapshots { return withVersion(healthy(), 14, 14) },
			"apply-errors", StatusNotApplicable, "pg_stat_subscription_stats is new in 15"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range Run(c.make(), All) {
				if r.Check != c.check {
					continue
				}
				if r.Status != c.status || !strings.Contains(r.Reason, c.reason) {
					t.Errorf("%s: status %s (%q), want %s containing %q", c.check, r.Status, r.Reason, c.status, c.reason)
				}
				return
			}
			t.Fatalf("no result for %s", c.check)
		})
	}
}

func TestEveryCheckIsListedOnceWithADocPage(t *testing.T) {
	seen := map[CheckID]bool{}
	for _, c := range All {
		if seen[c.ID] {
			t.Errorf("check %s listed twice", c.ID)
		}
		seen[c.ID] = true
		if c.Run == nil || c.Title == "" || c.Side == "" || c.Severity == "" {
			t.Errorf("check %s is incomplete", c.ID)
		}
		if c.MinVersion > 13 && c.VersionNote == "" {
			t.Errorf("check %s starts at %d without saying why", c.ID, c.MinVersion)
		}
		page := "../../docs/checks/" + string(c.ID) + ".md"
		if !fileExists(page) {
			t.Errorf("check %s has no page %s", c.ID, page)
		}
	}
}

func TestConflictsWithoutErrorsAreSaidAsConflictsWithTheirRepair(t *testing.T) {
	s := withVersion(healthy(), 18, 18)
	s.Subscriber.Subscriptions[0].Stats = &SubscriptionStats{Conflicts: map[string]int64{"update_missing": 4, "insert_exists": 0}}
	f := applyErrors.Run(s)
	if len(f) != 1 || !strings.HasPrefix(f[0].Found, "Subscription sub1 has met 4 conflicts") || strings.Contains(f[0].Found, "0 apply errors") ||
		!strings.Contains(f[0].Found, "update_missing 4") || !strings.HasPrefix(f[0].Fix, "Updates or deletes of missing rows were skipped") {
		t.Errorf("%+v: want the conflicts said as such, their repair first", f)
	}
}

// withStandbySlot gives the publisher a physical slot, sb1 (a standby's),
// listed in synchronized_standby_slots, and makes sub1 a failover slot or
// not.
func withStandbySlot(s Snapshots, failover bool) Snapshots {
	s.Publisher.Slots[0].Failover = failover
	s.Publisher.Slots = append(s.Publisher.Slots, Slot{Name: "sb1", Type: "physical", Active: true, XminAge: -1, CatalogXminAge: -1,
		RestartLSN: 0x3000000, WALStatus: "reserved", SafeWALSize: 10 << 30})
	s.Publisher.Settings["synchronized_standby_slots"] = Setting{Value: "sb1"}
	return s
}

// withReadyStandby adds a standby that streams from sb1 and holds a synced,
// ready copy of sub1.
func withReadyStandby(s Snapshots) Snapshots {
	yes := true
	s.Standby = &Standby{Version: s.Publisher.Version, InRecovery: true, ConninfoDBName: &yes,
		Settings: Settings{"sync_replication_slots": {Value: "on"}, "hot_standby_feedback": {Value: "on"}, "primary_slot_name": {Value: "sb1"}},
		Slots:    []Slot{{Name: "sub1", Type: "logical", Plugin: "pgoutput", Database: "app", Failover: true, Synced: true, XminAge: -1, CatalogXminAge: 120}}}
	return s
}

func TestConninfoNamesDB(t *testing.T) {
	for s, want := range map[string]bool{
		"host=a port=5432 user=rep dbname=postgres":   true,
		"dbname='my db' host=a":                       true,
		"host=a user=rep password=dbname=x":           false,
		"host=a user=rep":                             false,
		"postgresql://rep@a:5432/app?sslmode=require": true,
		"postgresql://rep@a:5432":                     false,
	} {
		if got := conninfoNamesDB(s); got != want {
			t.Errorf("%q: names a database %v, want %v", s, got, want)
		}
	}
}
