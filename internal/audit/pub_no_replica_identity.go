package audit

import (
	"fmt"
	"strings"
)

// noReplicaIdentity: UPDATE and DELETE fail on a published table without one.
var noReplicaIdentity = Check{
	ID:       "no-replica-identity",
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
			fix := fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (<columns that identify a row>); -- or, as a last resort, "+
				"ALTER TABLE %s REPLICA IDENTITY FULL; (see replica-identity-full)", t.Qualified(), t.Qualified())
			if ix := t.uniqueNotNull(); ix != nil {
				fix = fmt.Sprintf("ALTER TABLE %s REPLICA IDENTITY USING INDEX %s;", t.Qualified(), ident(ix.Name))
			}
			out = append(out, Finding{
				Severity: sev,
				Objects:  []string{"table " + t.Qualified()},
				Found: fmt.Sprintf("Table %s is published for UPDATE/DELETE (%s) with %s; %s.",
					t.Qualified(), strings.Join(pubs, ", "), state, seen),
				Why: "Without a replica identity the publisher cannot log which row changed: every UPDATE and DELETE on the " +
					"table fails on the publisher with \"cannot update table ... because it does not have a replica identity " +
					"and publishes updates\".",
				Fix: fix,
			})
		}
		return out
	},
}
