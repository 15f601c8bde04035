package lab

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lagscope/lagscope/internal/lab/consumer"
	"github.com/lagscope/lagscope/internal/units"
)

// Consumer scenarios: a replication client other than a subscription
// (Debezium, a queue feeder) reads slot lab_consumer; the pair's
// subscriptions are dropped, and diagnose observes the publisher only.
const (
	// ConsumerSlot is the slot the lab's client consumer reads.
	ConsumerSlot = "lab_consumer"
	// ConsumerApp is the consumer's application_name.
	ConsumerApp = "lab-consumer"
	// ConsumerSlow reads the stream at consumerSlowRate: its socket fills
	// and the walsender waits to write.
	ConsumerSlow = "slow"
	// ConsumerLazy reads at once and reports what it received, but
	// confirms it only every consumerLazyEvery.
	ConsumerLazy = "lazy"
)

const (
	consumerSlowRate  units.ByteRate = 2_000_000
	consumerLazyEvery                = 5 * time.Minute
)

// useConsumerSlot drops the pair's subscriptions (and so their slots) and
// creates the consumer's pgoutput slot in their place, before any backlog
// is built: the slot then keeps the backlog's WAL.
func (p *Pair) useConsumerSlot(ctx context.Context) error {
	var stmts []string
	for _, s := range p.Subscriptions {
		stmts = append(stmts, "DROP SUBSCRIPTION "+s)
	}
	if err := Exec(ctx, p.Sub.ConnString(Database), stmts...); err != nil {
		return fmt.Errorf("subscriber: %w", err)
	}
	p.Subscriptions = nil
	if err := Exec(ctx, p.Pub.ConnString(Database), "SELECT pg_create_logical_replication_slot('"+ConsumerSlot+"', 'pgoutput')"); err != nil {
		return fmt.Errorf("publisher: %w", err)
	}
	return nil
}

// startConsumer starts the lab's client consumer of kind (ConsumerSlow or
// ConsumerLazy) on the consumer slot; a lazy one is waited for until it
// has received all WAL written so far.
func (p *Pair) startConsumer(ctx context.Context, kind string, log io.Writer) error {
	o := consumer.Options{AppName: ConsumerApp}
	switch kind {
	case ConsumerSlow:
		o.Rate = consumerSlowRate
		fmt.Fprintf(log, "lab: %s reads slot %s at most %s\n", ConsumerApp, ConsumerSlot, o.Rate)
	case ConsumerLazy:
		o.ConfirmEvery = consumerLazyEvery
		fmt.Fprintf(log, "lab: %s reads slot %s at once and confirms every %s\n", ConsumerApp, ConsumerSlot, o.ConfirmEvery)
	default:
		return fmt.Errorf("unknown consumer kind %q", kind)
	}
	c, err := consumer.Start(ctx, p.Pub.ConnString(Database), ConsumerSlot, "lab_pub", o)
	if err != nil {
		return err
	}
	p.consumer = c
	if kind == ConsumerLazy {
		return p.waitDecoded(ctx)
	}
	return nil
}

// stopConsumer stops the client consumer, if any.
func (p *Pair) stopConsumer() {
	if p != nil && p.consumer != nil {
		p.consumer.Close()
		p.consumer = nil
	}
}
