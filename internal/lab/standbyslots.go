package lab

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/sleep"
)

// PubStandbySlot is the physical slot of the publisher's standby in the
// standby-slots scenario, listed in synchronized_standby_slots.
const PubStandbySlot = "pub_standby_slot"

// AddAbsentStandbySlot gives the publisher a physical standby on slot
// pub_standby_slot, lists that slot in synchronized_standby_slots (17+),
// makes every subscription's slot a failover slot, and stops the standby
// once it has streamed: the walsenders of failover slots then hold back
// every change past what the absent standby confirmed
// (WaitForStandbyConfirmation), as during a standby's maintenance.
func (p *Pair) AddAbsentStandbySlot(ctx context.Context, log io.Writer) error {
	fmt.Fprintf(log, "lab: the publisher gets a physical standby on slot %s, listed in synchronized_standby_slots; the subscription's slot fails over\n", PubStandbySlot)
	if err := Exec(ctx, p.Pub.ConnString(Database), quote.SQL("SELECT pg_create_physical_replication_slot(%L, true)", PubStandbySlot).Text); err != nil {
		return fmt.Errorf("publisher: %w", err)
	}
	sb, err := p.Lab.Standby(ctx, p.Pub, cluster.Options{Name: "pub-standby", Bin: p.Opts.Bin, CPUs: p.Opts.SubCPUs, Settings: map[string]string{
		"primary_slot_name": "'" + PubStandbySlot + "'",
	}})
	if err != nil {
		return fmt.Errorf("make the publisher's standby: %w", err)
	}
	if err := sb.Start(ctx); err != nil {
		return fmt.Errorf("start the publisher's standby: %w", err)
	}
	stmts := []string{"ALTER SYSTEM SET synchronized_standby_slots = '" + PubStandbySlot + "'", "SELECT pg_reload_conf()"}
	if err := Exec(ctx, p.Pub.ConnString(Database), stmts...); err != nil {
		return fmt.Errorf("publisher: %w", err)
	}
	stmts = nil
	for _, s := range p.Subscriptions {
		stmts = append(stmts, "ALTER SUBSCRIPTION "+s+" SET (failover = true)")
	}
	if err := Exec(ctx, p.Sub.ConnString(Database), stmts...); err != nil {
		return fmt.Errorf("subscriber: %w", err)
	}
	if err := p.waitSlotActive(ctx, PubStandbySlot); err != nil {
		return err
	}
	fmt.Fprintf(log, "lab: stopping the publisher's standby: %s stays behind\n", PubStandbySlot)
	return sb.Stop()
}

// waitSlotActive waits until slot is streamed from (at most 30 s).
func (p *Pair) waitSlotActive(ctx context.Context, slot string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := Query[int64](ctx, p.Pub.ConnString(Database), "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '"+slot+"'")
		if err == nil && n == 1 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the standby did not stream from slot %s within 30 s; see %s/pub-standby/server.log", slot, p.Lab.Dir)
		}
		if err := sleep.For(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}
