package audit

import (
	"fmt"
	"sort"
	"strings"
)

// CheckReplicaIdentityMismatch is the ID of replicaIdentityMismatch: its page is docs/checks/replica-identity-mismatch.md.
const CheckReplicaIdentityMismatch CheckID = "replica-identity-mismatch"

// replicaIdentityMismatch: the key the subscriber finds rows by must be
// covered by what the publisher sends as the old row's identity.
var replicaIdentityMismatch = Check{
	ID:       CheckReplicaIdentityMismatch,
	Title:    "replica identities agree between publisher and subscriber",
	Severity: Error,
	Side:     BothSides,
	Needs:    []Section{PubPublications, PubTables, SubSubscriptions, SubRels, SubTables},
	Run: func(s Snapshots) []Finding {
		var out []Finding
		seen := map[string]bool{}
		for _, l := range links(s) {
			if l.Local == nil || l.Remote == nil {
				continue
			}
			changes, _ := s.Publisher.publishesChanges(*l.Remote)
			remoteKey, remoteDesc := remoteIdentity(*l.Remote, l.RemoteColumns)
			for _, t := range s.Subscriber.leaves(l.Local) {
				if seen[t.Qualified()] {
					continue
				}
				seen[t.Qualified()] = true
				if f, ok := compareIdentity(l, *t, changes, remoteKey, remoteDesc); ok {
					out = append(out, f)
				}
			}
		}
		return out
	},
}

// remoteIdentity returns the columns the publisher sends as the old row's key
// (every published column for FULL) and a description.
func remoteIdentity(t Table, published map[string]bool) (map[string]bool, string) {
	key := map[string]bool{}
	switch t.ReplicaIdentity {
	case "full":
		for c := range published {
			key[c] = true
		}
		return key, "FULL"
	case "nothing":
		return key, "NOTHING"
	}
	ix := replicaIndex(t)
	if ix == nil {
		return key, strings.ToUpper(t.ReplicaIdentity) + " (no key)"
	}
	for _, c := range ix.keyColumns() {
		key[c] = true
	}
	desc := "DEFAULT (primary key " + ids(ix.keyColumns()) + ")"
	if t.ReplicaIdentity == "index" {
		desc = "USING INDEX " + id(ix.Name) + " (" + ids(ix.keyColumns()) + ")"
	}
	return key, desc
}

func localIdentityDesc(t Table) string {
	ix := identityOrPK(t)
	switch {
	case ix == nil && t.ReplicaIdentity == "full":
		return "FULL"
	case ix == nil:
		return strings.ToUpper(t.ReplicaIdentity) + " (no key)"
	case t.ReplicaIdentity == "index" && ix.ReplicaIdentity:
		return "USING INDEX " + id(ix.Name) + " (" + ids(ix.keyColumns()) + ")"
	case t.ReplicaIdentity == "default":
		return "DEFAULT (primary key " + ids(ix.keyColumns()) + ")"
	}
	return strings.ToUpper(t.ReplicaIdentity) + ", primary key " + ids(ix.keyColumns())
}

// compareIdentity follows logicalrep_rel_mark_updatable(): UPDATE and DELETE
// can be applied only when every column of the local identity index (or
// primary key) is part of the remote identity, or, without a local key, when
// the remote identity is FULL.
func compareIdentity(l link, t Table, changes bool, remoteKey map[string]bool, remoteDesc string) (Finding, bool) {
	localDesc := localIdentityDesc(t)
	f := Finding{Objects: []string{"table " + t.Qualified(), "subscription " + id(l.Sub.Name)}}
	found := fmt.Sprintf("Table %s: publisher REPLICA IDENTITY %s, subscriber %s.", t.Qualified(), remoteDesc, localDesc)
	ix := identityOrPK(t)
	var uncovered []string
	if ix != nil {
		for _, c := range ix.keyColumns() {
			if !remoteKey[c] {
				uncovered = append(uncovered, c)
			}
		}
		sort.Strings(uncovered)
	}
	switch {
	case len(remoteKey) == 0 && l.Remote.ReplicaIdentity != "full":
		return f, false // the publisher cannot log UPDATE/DELETE at all: no-replica-identity's finding
	case changes && ix == nil && l.Remote.ReplicaIdentity != "full":
		f.Severity = Error
		f.Found = found + " The subscriber has no key to find rows by and the publisher does not send whole rows."
		f.Why = "Every replicated UPDATE and DELETE stops the apply worker: \"logical replication target relation ... " +
			"has neither REPLICA IDENTITY index nor PRIMARY KEY and published relation does not have REPLICA IDENTITY FULL\"."
		f.Fix = fmt.Sprintf("Give the subscriber's table the publisher's key (%s) as its primary key: the unique index built "+
			"concurrently first, then attached as the key.", ids(sortedKeys(remoteKey)))
		f.Run = addPrimaryKey(onSubscriber, t, sortedKeys(remoteKey))
	case changes && len(uncovered) > 0:
		f.Severity = Error
		f.Found = found + fmt.Sprintf(" The publisher does not send %s as part of the old row's identity.", ids(uncovered))
		f.Why = "Every replicated UPDATE and DELETE stops the apply worker: \"publisher did not send replica identity " +
			"column expected by the logical replication target relation\"."
		f.Fix = fmt.Sprintf("Make the subscriber find rows by the columns the publisher sends: make a unique index on %s "+
			"(NOT NULL columns) the replica identity of %s, or widen the publisher's identity to cover %s.",
			ids(sortedKeys(remoteKey)), t.Qualified(), ids(uncovered))
	case ix == nil && l.Remote.ReplicaIdentity == "full":
		return f, false // how such a table is applied is full-identity-no-index's finding
	case remoteDesc != localDesc:
		f.Severity = Info
		f.Found = found
		f.Why = "Apply works, but the two sides identify rows differently: after a switchover, or when the subscriber " +
			"publishes onwards, the other identity applies, with its own WAL volume and lookup cost."
		f.Fix = fmt.Sprintf("If the tables are meant to be interchangeable, give %s the same key and replica identity on both sides.", t.Qualified())
	default:
		return f, false
	}
	return f, true
}
