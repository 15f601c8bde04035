package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/valid"
)

var (
	slotTypes  = []string{"logical", "physical"}
	severities = []string{string(Error), string(Warning), string(Info)}
	statuses   = []string{string(StatusOK), string(StatusFindings), string(StatusNotApplicable), string(StatusNotChecked)}
	checkSides = []string{string(PublisherSide), string(SubscriberSide), string(BothSides), string(StandbySide)}
)

// checkIDs are the IDs of All.
func checkIDs() []string {
	out := make([]string, len(All))
	for i, c := range All {
		out[i] = string(c.ID)
	}
	return out
}

// Validate checks the names and enumerated fields of snapshots read from a
// file (package valid): slot names by PostgreSQL's rule; database,
// publication, subscription, schema, table, column, index and trigger
// names as names; slot types. The first failure is returned, naming its
// field.
func (s Snapshots) Validate() error {
	var c valid.Checker
	slots := func(at string, ss []Slot) {
		for i, sl := range ss {
			f := at + "." + valid.At("slots", i)
			c.Slot(f+".name", sl.Name)
			c.OneOf(f+".type", sl.Type, slotTypes)
			c.OptionalName(f+".database", sl.Database)
		}
	}
	tables := func(at string, ts []Table) {
		for i, t := range ts {
			f := at + "." + valid.At("tables", i)
			c.Name(f+".schema", t.Schema)
			c.Name(f+".name", t.Name)
			for j, col := range t.Columns {
				c.Name(f+"."+valid.At("columns", j)+".name", col.Name)
			}
			for j, ix := range t.Indexes {
				c.Name(f+"."+valid.At("indexes", j)+".name", ix.Name)
			}
			for j, tr := range t.Triggers {
				c.Name(f+"."+valid.At("triggers", j)+".name", tr.Name)
			}
			for j, p := range t.Published {
				c.Name(f+"."+valid.At("published", j)+".publication", p.Publication)
			}
		}
	}
	if p := s.Publisher; p != nil {
		c.OptionalName("publisher.database", p.Database)
		slots("publisher", p.Slots)
		for i, pub := range p.Publications {
			c.Name("publisher."+valid.At("publications", i)+".name", pub.Name)
		}
		tables("publisher", p.Tables)
	}
	if sub := s.Subscriber; sub != nil {
		c.OptionalName("subscriber.database", sub.Database)
		for i, su := range sub.Subscriptions {
			f := "subscriber." + valid.At("subscriptions", i)
			c.Name(f+".name", su.Name)
			c.OptionalSlot(f+".slot", su.Slot)
			for j, p := range su.Publications {
				c.Name(f+"."+valid.At("publications", j), p)
			}
		}
		tables("subscriber", sub.Tables)
	}
	if st := s.Standby; st != nil {
		slots("standby", st.Slots)
		c.OptionalName("standby.database", st.Database)
		if st.Receiver != nil {
			c.OptionalSlot("standby.receiver.slot", st.Receiver.Slot)
		}
	}
	if pr := s.Primary; pr != nil {
		c.OptionalName("primary.database", pr.Database)
		slots("primary", pr.Slots)
		for i, w := range pr.Walsenders {
			c.OptionalSlot("primary."+valid.At("walsenders", i)+".slot", w.Slot)
		}
	}
	return c.Err
}

// validate checks the enumerated fields of a check report read from a
// file: check IDs, statuses, sides and severities.
func (r Report) validate() error {
	var c valid.Checker
	ids := checkIDs()
	for i, res := range r.Results {
		f := valid.At("results", i)
		c.OneOf(f+".check", res.Check, ids)
		c.OneOf(f+".status", string(res.Status), statuses)
		c.OneOf(f+".side", string(res.Side), checkSides)
		for j, fd := range res.Findings {
			ff := f + "." + valid.At("findings", j)
			c.OneOf(ff+".check", fd.Check, ids)
			c.OneOf(ff+".severity", string(fd.Severity), severities)
			c.Statements(ff+".run", fd.Run)
		}
	}
	if c.Err != nil {
		return fmt.Errorf("read check report: %w", c.Err)
	}
	return nil
}
