package lab

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lagscope/lagscope/internal/sleep"
)

// LostSlotKeep is the lost-slot scenario's max_slot_wal_keep_size: well
// under its backlog.
const LostSlotKeep = "32MB"

// loseSlots checkpoints the publisher until every slot is lost: the
// backlog is past max_slot_wal_keep_size, so the checkpoint removes WAL the
// slots still need and invalidates them (at most 30 s).
func (p *Pair) loseSlots(ctx context.Context, log io.Writer) error {
	fmt.Fprintf(log, "lab: checkpointing the publisher past max_slot_wal_keep_size = %s: its slots lose their WAL\n", LostSlotKeep)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := Exec(ctx, p.Pub.ConnString(Database), "SELECT pg_switch_wal()", "CHECKPOINT"); err != nil {
			return fmt.Errorf("publisher: %w", err)
		}
		n, err := Query[int64](ctx, p.Pub.ConnString(Database), "SELECT count(*) FROM pg_replication_slots WHERE wal_status IS DISTINCT FROM 'lost'")
		if err == nil && n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d slot(s) still not lost after 30 s of checkpoints (max_slot_wal_keep_size = %s): build a larger backlog", n, LostSlotKeep)
		}
		if err := sleep.For(ctx, time.Second); err != nil {
			return err
		}
	}
}
