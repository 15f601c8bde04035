package audit

import (
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lsn"
)

// TestIntegrationPublisherChecks creates each publisher misconfiguration on a
// real lab pair, sees the finding name the right objects, fixes it and sees
// the finding go.
func TestIntegrationPublisherChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0, func(o *lab.PairOptions) {
		// Half of it is where old-catalog-xmin warns: reachable in seconds.
		o.PubSettings = map[string]string{"autovacuum_freeze_max_age": "100000"}
	})

	t.Log("the subscription is created disabled: its slot is inactive, and nothing bounds the WAL it keeps")
	e.mustFind("inactive-slot", "slot lab_sub", 0)
	e.mustFind("slot-wal-keep-size", "setting max_slot_wal_keep_size", 0)

	t.Log("more WAL than max_wal_size behind the slot: wal_status extended")
	e.pub("ALTER SYSTEM SET max_wal_size = '32MB'", "SELECT pg_reload_conf()")
	for i := 0; i < 5; i++ {
		e.pub("UPDATE hot SET k = k + 1 WHERE id = 1", "SELECT pg_switch_wal()")
	}
	e.mustFind("slot-wal-status", "slot lab_sub", 10*time.Second)

	t.Log("60,000 transactions behind the inactive slot: catalog_xmin past half of autovacuum_freeze_max_age")
	e.pub("DO $$BEGIN FOR i IN 1..60000 LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END$$")
	e.mustFind("old-catalog-xmin", "slot lab_sub", 10*time.Second)

	t.Log("fix: bound the WAL, enable the subscription and let the slot advance")
	e.pub("ALTER SYSTEM SET max_slot_wal_keep_size = '1GB'", "ALTER SYSTEM SET max_wal_size = '8GB'", "SELECT pg_reload_conf()")
	e.enable()
	e.caughtUp()
	e.mustNotFind("inactive-slot", "slot lab_sub", 10*time.Second)
	e.mustNotFind("slot-wal-keep-size", "", 5*time.Second)
	e.nudgeSlot()
	e.mustNotFind("slot-wal-status", "slot lab_sub", 5*time.Second)
	e.mustNotFind("old-catalog-xmin", "slot lab_sub", 5*time.Second)

	t.Log("a table published for UPDATE/DELETE without a replica identity, then FULL, then a key")
	e.pub("CREATE TABLE nokey (id int NOT NULL, v int)", "INSERT INTO nokey SELECT g, 0 FROM generate_series(1, 100) g",
		"UPDATE nokey SET v = 1 WHERE id = 1")
	e.sub("CREATE TABLE nokey (id int NOT NULL, v int)")
	e.pub("ALTER PUBLICATION lab_pub ADD TABLE nokey")
	e.refresh(false)
	e.mustFind("no-replica-identity", "table public.nokey", 0)
	e.pub("ALTER TABLE nokey REPLICA IDENTITY FULL")
	e.mustNotFind("no-replica-identity", "table public.nokey", 0)
	if f := e.mustFind("replica-identity-full", "table public.nokey", 0); f.Severity != Info {
		t.Errorf("REPLICA IDENTITY FULL without a key: severity %s, want info", f.Severity)
	}
	e.pub("ALTER TABLE nokey ADD PRIMARY KEY (id)")
	if f := e.mustFind("replica-identity-full", "table public.nokey", 0); f.Severity != Warning {
		t.Errorf("REPLICA IDENTITY FULL with a primary key: severity %s, want warning", f.Severity)
	}
	e.pub("ALTER TABLE nokey REPLICA IDENTITY DEFAULT")
	e.mustNotFind("replica-identity-full", "table public.nokey", 0)

	if e.major >= 15 {
		t.Log("a row filter on a column outside the replica identity, then on the key, then none")
		e.pub("CREATE PUBLICATION filt FOR TABLE hot WHERE (k >= 0)")
		if f := e.mustFind("row-filter", "publication filt", 0); f.Severity != Error {
			t.Errorf("filter on k with UPDATE published: severity %s, want error", f.Severity)
		}
		e.pub("ALTER PUBLICATION filt SET TABLE hot WHERE (id > 0)")
		if f := e.mustFind("row-filter", "publication filt", 0); f.Severity != Info {
			t.Errorf("filter on the key: severity %s, want info", f.Severity)
		}
		e.pub("DROP PUBLICATION filt")
		e.mustNotFind("row-filter", "publication filt", 0)
	}

	t.Log("a second logical slot in the database")
	e.pub("SELECT pg_create_logical_replication_slot('extra_slot', 'pgoutput')")
	e.mustFind("slots-per-database", "slot extra_slot", 0)
	e.mustFind("inactive-slot", "slot extra_slot", 0)
	e.pub("SELECT pg_drop_replication_slot('extra_slot')")
	e.mustNotFind("slots-per-database", "database lab", 0)
	e.mustNotFind("inactive-slot", "slot extra_slot", 0)

	t.Log("a hash-partitioned table published as its partitions, then via its root")
	for _, side := range []func(...string){e.pub, e.sub} {
		side("CREATE TABLE parted (id int PRIMARY KEY, k int) PARTITION BY HASH (id)",
			"CREATE TABLE parted_p0 PARTITION OF parted FOR VALUES WITH (MODULUS 2, REMAINDER 0)",
			"CREATE TABLE parted_p1 PARTITION OF parted FOR VALUES WITH (MODULUS 2, REMAINDER 1)")
	}
	e.pub("ALTER PUBLICATION lab_pub ADD TABLE parted")
	e.refresh(false)
	e.mustFind("partitioned-publication", "table public.parted", 0)
	e.pub("ALTER PUBLICATION lab_pub SET (publish_via_partition_root = true)")
	e.refresh(false)
	e.mustNotFind("partitioned-publication", "table public.parted", 0)

	if e.major >= 14 {
		t.Log("a 300 kB transaction with logical_decoding_work_mem = 64kB and streaming off spills")
		e.pub("ALTER SYSTEM SET logical_decoding_work_mem = '64kB'", "SELECT pg_reload_conf()")
		e.alterSub("ALTER SUBSCRIPTION lab_sub SET (streaming = off)")
		e.pub("UPDATE hot SET k = k + 1")
		e.caughtUp()
		e.mustFind("decoding-spill", "slot lab_sub", 10*time.Second)
		// Move the slot past that transaction first, or the next walsender
		// decodes (and spills) it again on its way to the confirmed position.
		e.nudgeSlot()
		e.alterSub("ALTER SUBSCRIPTION lab_sub SET (streaming = on)")
		e.caughtUp()
		e.pub("SELECT pg_stat_reset_replication_slot('lab_sub')")
		e.pub("UPDATE hot SET k = k + 1")
		e.caughtUp()
		e.eventually("the streamed transaction in pg_stat_replication_slots", 10*time.Second, func() bool {
			var n int64
			e.value(e.pubDSN, "SELECT coalesce(sum(stream_txns), 0) FROM pg_stat_replication_slots WHERE slot_name = 'lab_sub'", &n)
			return n > 0
		})
		e.mustNotFind("decoding-spill", "slot lab_sub", 0)
		e.pub("ALTER SYSTEM SET logical_decoding_work_mem = '64MB'", "SELECT pg_reload_conf()")
	}

	t.Log("two walsenders and two slots at most: one free each")
	e.pub("ALTER SYSTEM SET max_wal_senders = 2", "ALTER SYSTEM SET max_replication_slots = 2")
	e.restart(e.p.Pub)
	e.mustFind("wal-senders-headroom", "setting max_wal_senders", 0)
	e.mustFind("slots-headroom", "setting max_replication_slots", 0)
	e.pub("ALTER SYSTEM SET max_wal_senders = 20", "ALTER SYSTEM SET max_replication_slots = 20")
	e.restart(e.p.Pub)
	e.mustNotFind("wal-senders-headroom", "", 0)
	e.mustNotFind("slots-headroom", "", 0)

	t.Log("wal_level = replica, on the subscriber's server (it has no logical slots, so it can start)")
	walLevelFindings := func() []Finding {
		s, err := Collect(e.ctx, Options{Publisher: e.subDSN})
		if err != nil {
			t.Fatal(err)
		}
		var fs []Finding
		for _, r := range Run(s, All) {
			fs = append(fs, r.Findings...)
		}
		return matching(fs, "wal-level", "setting wal_level")
	}
	e.sub("ALTER SYSTEM SET wal_level = replica")
	e.restart(e.p.Sub)
	if len(walLevelFindings()) != 1 {
		t.Errorf("wal_level = replica: no wal-level finding")
	}
	e.sub("ALTER SYSTEM SET wal_level = logical")
	e.restart(e.p.Sub)
	if fs := walLevelFindings(); len(fs) != 0 {
		t.Errorf("wal_level = logical: still %v", fs)
	}
}

// nudgeSlot moves the publisher's logical slots' restart_lsn past the current
// position and their catalog_xmin to a recent transaction: a checkpoint logs
// the running transactions, a write after it gets confirmed, and the
// walsender advances the slot on that confirmation.
func (e *env) nudgeSlot() {
	e.t.Helper()
	var target int64
	e.value(e.pubDSN, "SELECT "+lsn.SQL("pg_current_wal_lsn()"), &target)
	e.eventually("the slot to advance", 60*time.Second, func() bool {
		e.pub("CHECKPOINT", "UPDATE hot SET k = k + 1 WHERE id = 2")
		e.caughtUp()
		var restart, age int64
		e.value(e.pubDSN, "SELECT min("+lsn.SQL("restart_lsn")+") FROM pg_replication_slots WHERE slot_type = 'logical' AND NOT temporary", &restart)
		e.value(e.pubDSN, "SELECT max(age(catalog_xmin)) FROM pg_replication_slots WHERE NOT temporary", &age)
		return restart >= target && age < 1000
	})
}
