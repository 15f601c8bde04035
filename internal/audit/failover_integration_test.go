package audit

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/cluster"
)

// TestIntegrationFailoverSafety gives a lab pair's publisher a physical
// standby on a slot and checks failover-safety at each step: before 17 the
// finding says a failover loses the slot; from 17 it fails while the slot is
// not a failover slot, then while the standby does not synchronise slots
// (naming sync_replication_slots), and passes once the standby holds a
// synced, ready copy of the slot.
func TestIntegrationFailoverSafety(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0, nil)
	e.enable()
	e.pub("SELECT pg_create_physical_replication_slot('sb1', true)")
	if e.major < 17 {
		f := e.mustFind("failover-safety", "slot lab_sub", 0)
		if !strings.Contains(f.Found, "has no failover slots") || !strings.Contains(f.Found, "sb1") {
			t.Errorf("before 17 the finding must say a failover to the standby on sb1 loses the slot: %s", f.Found)
		}
		return
	}
	sb, err := e.p.Lab.Standby(e.ctx, e.p.Pub, cluster.Options{Name: "pub-standby", Bin: e.p.Opts.Bin, CPUs: e.p.Opts.SubCPUs, Settings: map[string]string{
		"primary_slot_name":      "'sb1'",
		"hot_standby_feedback":   "on",
		"sync_replication_slots": "off",
		"primary_conninfo": fmt.Sprintf("'host=%s port=%d user=%s application_name=pub-standby dbname=%s'",
			e.p.Pub.SocketDir, e.p.Pub.Port, cluster.Superuser, lab.Database),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.Start(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.standbyDSN = sb.ConnString(lab.Database)
	e.pub("ALTER SYSTEM SET synchronized_standby_slots = 'sb1'", "SELECT pg_reload_conf()")
	e.eventually("the standby to stream from sb1", 30*time.Second, func() bool {
		var n int
		e.value(e.pubDSN, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sb1' AND active", &n)
		return n == 1
	})

	t.Log("the subscription's slot is not a failover slot")
	if f := e.mustFind("failover-safety", "slot lab_sub", 30*time.Second); !strings.Contains(f.Found, "failover = false") {
		t.Errorf("want the slot named as not a failover slot: %s", f.Found)
	}

	t.Log("a failover slot, but the standby does not synchronise slots")
	if err := e.p.SetEnabled(e.ctx, false); err != nil {
		t.Fatal(err)
	}
	e.eventually("the subscription's slot to be released", 30*time.Second, func() bool {
		var n int
		e.value(e.pubDSN, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'lab_sub' AND active", &n)
		return n == 0
	})
	e.sub("ALTER SUBSCRIPTION lab_sub SET (failover = true)")
	e.enable()
	f := e.mustFind("failover-safety", "setting sync_replication_slots (standby)", 0)
	for _, g := range e.findings() {
		if g.Check == "failover-safety" && strings.Contains(g.Found, "failover = false") {
			t.Errorf("the slot is a failover slot now, yet: %s", g.Found)
		}
	}
	t.Logf("without slot synchronisation: %s", f.Found)

	t.Log("the standby synchronises slots: the check passes once its copy is synced and ready")
	e.exec(e.standbyDSN, "ALTER SYSTEM SET sync_replication_slots = on", "SELECT pg_reload_conf()")
	e.pub("INSERT INTO hot SELECT g, 0, 0, 'x' FROM generate_series(200001, 200100) g")
	e.caughtUp()
	on := time.Now()
	deadline := on.Add(90 * time.Second)
	for {
		var fs []Finding
		for _, f := range e.findings() {
			if f.Check == "failover-safety" {
				fs = append(fs, f)
			}
		}
		if len(fs) == 0 {
			t.Logf("passed %.1f s after sync_replication_slots = on", time.Since(on).Seconds())
			break
		}
		if time.Now().After(deadline) {
			var state string
			e.value(e.standbyDSN, "SELECT coalesce(string_agg(slot_name || ' synced=' || synced || ' temporary=' || temporary || ' invalidation=' || coalesce(invalidation_reason, '-'), '; '), 'no slots') FROM pg_replication_slots", &state)
			t.Fatalf("failover-safety still finds, 90 s after sync_replication_slots = on:%s\nstandby slots: %s; log %s", describeFindings(fs), state, sb.Dir)
		}
		time.Sleep(time.Second)
	}
	var synced bool
	e.value(e.standbyDSN, "SELECT synced AND NOT temporary FROM pg_replication_slots WHERE slot_name = 'lab_sub'", &synced)
	if !synced {
		t.Errorf("the check passed, but the standby's lab_sub is not a synced, ready copy")
	}

	t.Log("an idle physical slot: not proposed for synchronized_standby_slots, and taken out of it by the printed fix")
	e.pub("SELECT pg_create_physical_replication_slot('sb_idle', true)")
	e.mustNotFind("failover-safety", "", 0)
	e.pub("ALTER SYSTEM SET synchronized_standby_slots = 'sb1,sb_idle'", "SELECT pg_reload_conf()")
	f = e.mustFind("failover-safety", "slot sb_idle", 5*time.Second)
	var texts []string
	for _, st := range f.Run {
		if st.On != onPublisher || st.Withheld != "" || strings.Contains(st.Text, "sb_idle") {
			t.Fatalf("statement %+v: want one for the publisher, never naming the idle slot", st)
		}
		texts = append(texts, st.Text)
	}
	if len(texts) == 0 || texts[0] != "ALTER SYSTEM SET synchronized_standby_slots = 'sb1';" {
		t.Fatalf("fix %q: want synchronized_standby_slots set to the connected standby's slot only", texts)
	}
	e.pub(texts...)
	e.mustNotFind("failover-safety", "", 5*time.Second)
	e.pub("SELECT pg_drop_replication_slot('sb_idle')")
}
