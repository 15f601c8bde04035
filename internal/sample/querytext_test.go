package sample

import (
	"strings"
	"testing"
)

// A tick's captured query text keeps no constant unless the run kept them:
// the blocker's and the open transaction's statements both become
// placeholders, before the tick is stored.
func TestNormalizeQueriesRemovesConstants(t *testing.T) {
	tk := Tick{Reads: []Read{
		{Node: SubscriberNode, Blockers: []Blocker{{Query: "UPDATE patients SET ssn = '123-45-6789' WHERE id = 7"}}},
		{Node: PublisherNode, Xacts: []OpenXact{{Query: "INSERT INTO notes VALUES ($$Dear Dr. Smith"}}},
	}}
	tk.normalizeQueries()
	if got, want := tk.Read(SubscriberNode).Blockers[0].Query, "UPDATE patients SET ssn = $1 WHERE id = $2"; got != want {
		t.Errorf("blocker's query = %q, want %q", got, want)
	}
	if got := tk.Read(PublisherNode).Xacts[0].Query; strings.Contains(got, "Smith") || got != "INSERT INTO notes VALUES ($1" {
		t.Errorf("open transaction's query = %q: its constant shows", got)
	}
}
