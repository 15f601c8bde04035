package sample

import "github.com/lagscope/lagscope/internal/valid"

var (
	sides = []string{Publisher, Subscriber, string(PrimaryNode), string(StandbyNode)}
	roles = []string{RoleWalsender, RoleApply, RoleParallel, RoleTablesync, RoleStartup, RoleReceiver}
)

// Validate checks the names and enumerated fields of a recording read from
// a file (package valid): slot names by PostgreSQL's rule (a physical
// slot's, a walsender's, a WAL receiver's as well), subscription and
// database names as names, sides and process roles against the known ones.
// The first failure is returned, naming its field.
func (r *Recording) Validate() error {
	var c valid.Checker
	for i, t := range r.Ticks {
		at := valid.At("ticks", i)
		for _, rd := range t.Reads {
			for j, s := range rd.Slots {
				f := at + "." + valid.At("slots", j)
				c.Slot(f+".name", s.Name)
				c.OptionalName(f+".database", s.Database)
			}
			for j, s := range rd.PhysicalSlots {
				c.Slot(at+"."+valid.At("physical_slots", j)+".name", s.Name)
			}
			for j, s := range rd.Senders {
				c.OptionalSlot(at+"."+valid.At("senders", j)+".slot", s.Slot)
			}
			if rd.Standby != nil && rd.Standby.Receiver != nil {
				c.OptionalSlot(at+".standby.receiver.slot", rd.Standby.Receiver.Slot)
			}
			for j, s := range rd.Subs {
				f := at + "." + valid.At("subs", j)
				c.Name(f+".name", s.Name)
				c.OptionalSlot(f+".slot", s.Slot)
			}
		}
		for j, p := range t.Procs {
			f := at + "." + valid.At("procs", j)
			c.OneOf(f+".side", p.Side, sides)
			c.OneOf(f+".role", p.Role, roles)
		}
		for j, e := range t.ReadErrors {
			c.OneOf(at+"."+valid.At("read_errors", j)+".side", e.Side, sides)
		}
	}
	for i, p := range r.Probes {
		c.OneOf(valid.At("probes", i)+".side", p.Side, sides)
	}
	for i, g := range r.Gaps {
		c.OneOf(valid.At("gaps", i)+".side", g.Side, sides)
	}
	return c.Err
}
