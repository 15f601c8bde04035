package sample

import (
	"strings"
	"testing"
)

func TestRecordingValidate(t *testing.T) {
	good := func() *Recording {
		return &Recording{
			Ticks: []Tick{{
				Reads: []Read{
					{Node: PublisherNode, Slots: []Slot{{Name: "lab_sub", Database: "app"}}},
					{Node: SubscriberNode, Subs: []Sub{{Name: "Lab Sub", Slot: "lab_sub"}, {Name: "no_slot"}}},
				},
				Procs: []ProcStat{{Side: Publisher, Role: RoleWalsender}},
			}},
			Probes: []Probe{{Side: Subscriber}},
		}
	}
	cases := []struct {
		name  string
		edit  func(*Recording)
		field string // "" = valid
	}{
		{"a recording as lagscope writes it is valid", func(*Recording) {}, ""},
		{"a subscription name that is not UTF-8 is kept (SQL_ASCII)", func(r *Recording) { r.Ticks[0].Edit(SubscriberNode).Subs[0].Name = "caf\xe9" }, ""},
		{"a slot name with a quote is refused", func(r *Recording) { r.Ticks[0].Edit(PublisherNode).Slots[0].Name = "x'; DROP TABLE t; --" }, "ticks[0].slots[0].name"},
		{"a subscription's slot in capitals is refused", func(r *Recording) { r.Ticks[0].Edit(SubscriberNode).Subs[0].Slot = "Lab" }, "ticks[0].subs[0].slot"},
		{"an empty subscription name is refused", func(r *Recording) { r.Ticks[0].Edit(SubscriberNode).Subs[1].Name = "" }, "ticks[0].subs[1].name"},
		{"an unknown process role is refused", func(r *Recording) { r.Ticks[0].Procs[0].Role = "postmaster" }, "ticks[0].procs[0].role"},
		{"an unknown probe side is refused", func(r *Recording) { r.Probes[0].Side = "consumer" }, "probes[0].side"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := good()
			c.edit(r)
			err := r.Validate()
			switch {
			case c.field == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.field != "" && (err == nil || !strings.Contains(err.Error(), c.field)):
				t.Errorf("error %v, want one naming %s", err, c.field)
			}
		})
	}
}
