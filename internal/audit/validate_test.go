package audit

import (
	"strings"
	"testing"
)

func TestSnapshotsValidate(t *testing.T) {
	good := func() Snapshots {
		return Snapshots{
			Publisher: &Publisher{Database: "app", Slots: []Slot{{Name: "lab_sub", Type: "logical"}},
				Publications: []Publication{{Name: "Pub One"}},
				Tables:       []Table{{Schema: "public", Name: "position", Columns: []Column{{Name: "user"}}}}},
			Subscriber: &Subscriber{Subscriptions: []Subscription{{Name: "s", Slot: "lab_sub", Publications: []string{"Pub One"}}, {Name: "none"}}},
		}
	}
	cases := []struct {
		name  string
		edit  func(*Snapshots)
		field string
	}{
		{"snapshots as lagscope writes them are valid", func(*Snapshots) {}, ""},
		{"a table name with quotes, spaces and U+202E is a name", func(s *Snapshots) { s.Publisher.Tables[0].Name = "x'\" \u202e; --" }, ""},
		{"a slot name with a space is refused", func(s *Snapshots) { s.Publisher.Slots[0].Name = "lab sub" }, "publisher.slots[0].name"},
		{"a slot of an unknown type is refused", func(s *Snapshots) { s.Publisher.Slots[0].Type = "magic" }, "publisher.slots[0].type"},
		{"a column name of 64 bytes is refused", func(s *Snapshots) { s.Publisher.Tables[0].Columns[0].Name = strings.Repeat("c", 64) }, "publisher.tables[0].columns[0].name"},
		{"a subscription's publication with a NUL is refused", func(s *Snapshots) { s.Subscriber.Subscriptions[0].Publications[0] = "a\x00" }, "subscriber.subscriptions[0].publications[0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := good()
			c.edit(&s)
			err := s.Validate()
			switch {
			case c.field == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.field != "" && (err == nil || !strings.Contains(err.Error(), c.field)):
				t.Errorf("error %v, want one naming %s", err, c.field)
			}
		})
	}
}
