package lab

import (
	"context"
	"fmt"
	"time"
)

// TriggerName is the row trigger the trigger scenarios put on the
// subscriber's hot, ENABLE ALWAYS so that it fires in the apply worker.
const TriggerName = "lab_audit"

// Trigger bodies (PL/pgSQL, before the RETURN NEW) of the trigger
// scenarios: work the apply worker does once per replicated row.
const (
	// TriggerSleeps waits 1 ms per row, as a trigger that calls a slow
	// service, waits on an advisory lock or simply sleeps: the apply worker
	// waits on PgSleep (wait_event_type Timeout).
	TriggerSleeps = "PERFORM pg_sleep(0.001);"
	// TriggerCPU computes per row (about 0.2 ms of CPU on the lab's VM):
	// the apply worker is CPU-bound with no index to blame.
	TriggerCPU = "PERFORM sum(g) FROM generate_series(1, 2000) g;"
)

// ReplicaTrigger adds a BEFORE UPDATE row trigger running body to the
// subscriber's hot, enabled ALWAYS (it fires for replicated rows); it is
// dropped when lifted, so the backlog drains at the apply worker's own speed.
func ReplicaTrigger(body string) Step {
	return Step{Name: "replica trigger", Start: func(ctx context.Context, d *driver) error {
		fmt.Fprintf(d.o.Log, "lab: trigger %s on the subscriber's hot (ENABLE ALWAYS) runs %q for every replicated row until the window ends\n", TriggerName, body)
		return Exec(ctx, d.p.Sub.ConnString(Database), triggerDDL(body)...)
	}, Lift: dropReplicaTrigger}
}

// triggerDDL creates TriggerName's function and trigger on hot and enables
// it for replicated rows.
func triggerDDL(body string) []string {
	return []string{
		fmt.Sprintf("CREATE FUNCTION %s_fn() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN %s RETURN NEW; END$$", TriggerName, body),
		fmt.Sprintf("CREATE TRIGGER %s BEFORE UPDATE ON hot FOR EACH ROW EXECUTE FUNCTION %s_fn()", TriggerName, TriggerName),
		fmt.Sprintf("ALTER TABLE hot ENABLE ALWAYS TRIGGER %s", TriggerName),
	}
}

// dropReplicaTrigger drops the trigger and its function, if there. It does
// not depend on a context: it runs on cancellation too.
func dropReplicaTrigger(p *Pair) {
	if p == nil || p.Sub == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	Exec(ctx, p.Sub.ConnString(Database),
		fmt.Sprintf("DROP TRIGGER IF EXISTS %s ON hot", TriggerName),
		fmt.Sprintf("DROP FUNCTION IF EXISTS %s_fn()", TriggerName))
}

// MissingColumn is the published column of hot the missing-column scenario
// drops from the subscriber's copy.
const MissingColumn = "v"

// DropSubColumn drops MissingColumn from the subscriber's hot (a schema
// change made on the publisher only, seen from the other side): the apply
// worker stops at the first change to hot with "is missing replicated
// column". Lifted, the column comes back (its values are lost: the data
// is not verified).
var DropSubColumn = Step{Name: "drop a subscriber column", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: dropping column %s from the subscriber's hot (the publisher still publishes it)\n", MissingColumn)
	return Exec(ctx, d.p.Sub.ConnString(Database), "ALTER TABLE hot DROP COLUMN "+MissingColumn)
}, Lift: func(p *Pair) {
	if p == nil || p.Sub == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	Exec(ctx, p.Sub.ConnString(Database), "ALTER TABLE hot ADD COLUMN IF NOT EXISTS "+MissingColumn+" bigint NOT NULL DEFAULT 0")
}}
