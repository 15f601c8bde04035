package audit

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckNoReplicaIdentity is the ID of noReplicaIdentity: its page is docs/checks/no-replica-identity.md.
const CheckNoReplicaIdentity CheckID = "no-replica-identity"

// noReplicaIdentity: UPDATE and DELETE fail on a published table without one.
var noReplicaIdentity = Check{
	ID:       CheckNoReplicaIdentity,
	Title:    "tables published for UPDATE/DELETE have a replica identity",
	Severity: Error,
	Side:     PublisherSide,
	Needs:    []Section{PubPublications, PubTables},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		var out []Finding
		for _, t := range p.Tables {
			if t.Kind != "table" || len(t.Published) == 0 {
				continue
			}
			changes, pubs := p.publishesChanges(t)
			if !changes || t.ReplicaIdentity == "full" || replicaIndex(t) != nil {
				continue
			}
			state := "REPLICA IDENTITY " + strings.ToUpper(t.ReplicaIdentity) + " and no primary key"
			if t.ReplicaIdentity == "index" {
				state = "REPLICA IDENTITY USING INDEX on an index that no longer qualifies (or is gone)"
			}
			sev := Warning
			seen := "it has had no UPDATE or DELETE since statistics were reset (an insert-only table works until the first one)"
			if t.Updates+t.Deletes > 0 {
				sev = Error
				seen = fmt.Sprintf("it has had %d updates and %d deletes since statistics were reset", t.Updates, t.Deletes)
			}
			fix := "Give the table a primary key on the columns that identify a row (lagscope cannot know which: build a unique " +
				"index on them concurrently, then make it the primary key). Only as a last resort make the identity FULL " +
				"(see replica-identity-full)."
			run := []quote.Statement{quote.SQL("ALTER TABLE %I REPLICA IDENTITY FULL;", t.qname()).OnServer(onPublisher).
				WithNote("last resort, only if no key can be given; " + lockNote)}
			if ix := t.uniqueNotNull(); ix != nil {
				fix = fmt.Sprintf("Make its unique index %s on NOT NULL columns the replica identity.", id(ix.Name))
				run = []quote.Statement{quote.SQL("ALTER TABLE %I REPLICA IDENTITY USING INDEX %I;", t.qname(), ix.Name).
					OnServer(onPublisher).WithNote(lockNote)}
			}
			out = append(out, Finding{
				Severity: sev,
				Objects:  []string{"table " + t.Qualified()},
				Found: fmt.Sprintf("Table %s is published for UPDATE/DELETE (%s) with %s; %s.",
					t.Qualified(), ids(pubs), state, seen),
				Why: "Without a replica identity the publisher cannot log which row changed: every UPDATE and DELETE on the " +
					"table fails on the publisher with \"cannot update table ... because it does not have a replica identity " +
					"and publishes updates\".",
				Fix: fix,
				Run: run,
			})
		}
		return out
	},
}
