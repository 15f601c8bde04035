package audit

import "fmt"

// Lookup is how a subscriber's apply worker finds the local row of a
// replicated UPDATE or DELETE in one (non-partitioned) table, following
// FindLogicalRepLocalIndex() in src/backend/replication/logical/relation.c.
type Lookup struct {
	// Index is the index used; "" means a sequential scan per changed row.
	Index string `json:"index,omitempty"`
	// Via says why: "replica identity index", "primary key",
	// "usable index (REPLICA IDENTITY FULL)" or "sequential scan".
	Via string `json:"via"`
	// Rejected lists the indexes examined for REPLICA IDENTITY FULL that are
	// not usable, with the rule each one breaks.
	Rejected []Rejection `json:"rejected,omitempty"`
}

// Rejection is an index the apply worker will not use, and why.
type Rejection struct {
	Index  string `json:"index"`
	Reason string `json:"reason"`
}

// Ways an apply worker finds rows.
const (
	ViaIdentityIndex = "replica identity index"
	ViaPrimaryKey    = "primary key"
	ViaFullIndex     = "usable index (REPLICA IDENTITY FULL)"
	ViaSeqScan       = "sequential scan"
)

// ApplyLookup returns how a subscriber on PostgreSQL major finds rows of local
// (a table, not a partitioned parent: each partition decides for itself) when
// the remote table has REPLICA IDENTITY FULL (remoteFull) and publishes the
// columns remote (by name).
//
// The local replica identity index or primary key wins on every version.
// Otherwise, only when the remote relation is FULL and only from 16, the
// first index in OID order that UsableForFullIdentity accepts is used; there
// is no costing.
func ApplyLookup(major int, local Table, remoteFull bool, remote map[string]bool) Lookup {
	if ix := identityOrPK(local); ix != nil {
		via := ViaPrimaryKey
		if local.ReplicaIdentity == "index" && ix.ReplicaIdentity {
			via = ViaIdentityIndex
		}
		return Lookup{Index: ix.Name, Via: via}
	}
	l := Lookup{Via: ViaSeqScan}
	if !remoteFull {
		return l
	}
	for _, ix := range local.Indexes {
		if !ix.Live {
			continue
		}
		ok, why := UsableForFullIdentity(major, ix, remote)
		if ok {
			return Lookup{Index: ix.Name, Via: ViaFullIndex, Rejected: l.Rejected}
		}
		l.Rejected = append(l.Rejected, Rejection{Index: ix.Name, Reason: why})
	}
	return l
}

// identityOrPK is GetRelationIdentityOrPK(), what a subscriber finds rows
// by: the replica identity index, else the primary key.
func identityOrPK(t Table) *Index {
	if ix := replicaIndex(t); ix != nil {
		return ix
	}
	return primaryKeyIndex(t)
}

// replicaIndex is RelationGetReplicaIndex(), the index whose columns the
// publisher logs as the old row's key: the primary key for REPLICA IDENTITY
// DEFAULT, the chosen index for USING INDEX, none for FULL and NOTHING.
func replicaIndex(t Table) *Index {
	switch t.ReplicaIdentity {
	case "default":
		return primaryKeyIndex(t)
	case "index":
		for i, ix := range t.Indexes {
			if ix.ReplicaIdentity && keyCandidate(ix) {
				return &t.Indexes[i]
			}
		}
	}
	return nil
}

// primaryKeyIndex is the relation cache's primary key: the relation cache
// only considers valid, unique, immediate, non-partial indexes.
func primaryKeyIndex(t Table) *Index {
	for i, ix := range t.Indexes {
		if ix.Primary && keyCandidate(ix) {
			return &t.Indexes[i]
		}
	}
	return nil
}

func keyCandidate(ix Index) bool {
	return ix.Live && ix.Valid && ix.Unique && ix.Immediate && ix.Predicate == ""
}

// UsableForFullIdentity reports whether a subscriber on PostgreSQL major can
// use ix (not the primary key or identity index) to find rows of a table whose
// remote side has REPLICA IDENTITY FULL and publishes the columns remote, and
// if not, which rule ix breaks. It follows IsIndexUsableForReplicaIdentityFull()
// (relation.c) per version:
//
//   - before 16: never (a sequential scan per row);
//   - 16: btree, not partial, leftmost key a plain column that exists remotely;
//   - 17: as 16, btree or hash;
//   - 18: not partial; every key column's operator family translates equality
//     (btree, hash; GiST only with a compare-type translation function); every
//     index column's stored type has an equality operator; leftmost key as in
//     16; the access method returns single tuples (amgettuple).
//
// An invalid index (a failed CREATE INDEX CONCURRENTLY) is reported unusable:
// it must be rebuilt before it can be relied on.
func UsableForFullIdentity(major int, ix Index, remote map[string]bool) (bool, string) {
	if major < 16 {
		return false, fmt.Sprintf("PostgreSQL %d uses only the primary key or the replica identity index (other indexes for REPLICA IDENTITY FULL are used from 16)", major)
	}
	if !ix.Valid {
		return false, "invalid index (a failed CREATE INDEX CONCURRENTLY): REINDEX it"
	}
	switch {
	case major == 16 && ix.AM != "btree":
		return false, fmt.Sprintf("access method %s: PostgreSQL 16 uses only btree indexes", ix.AM)
	case major == 17 && ix.AM != "btree" && ix.AM != "hash":
		return false, fmt.Sprintf("access method %s: PostgreSQL 17 uses only btree or hash indexes", ix.AM)
	}
	if ix.Predicate != "" {
		return false, "partial index (WHERE " + ix.Predicate + ")"
	}
	if major >= 18 {
		for _, k := range ix.Keys {
			if !(ix.AM == "btree" || ix.AM == "hash" || ix.AM == "gist" && k.CompareTranslate) {
				return false, fmt.Sprintf("access method %s has no equality strategy for key %s", ix.AM, k.name())
			}
		}
		for _, a := range ix.Attributes {
			if !a.Equality {
				return false, fmt.Sprintf("index column type %s has no equality operator", a.Type)
			}
		}
	}
	if len(ix.Keys) == 0 || ix.Keys[0].Attnum == 0 {
		lead := ""
		if len(ix.Keys) > 0 {
			lead = " " + ix.Keys[0].Expr
		}
		return false, "leftmost key is an expression" + lead
	}
	if !remote[ix.Keys[0].Column] {
		return false, fmt.Sprintf("leftmost key column %s is not in the published (remote) columns", ix.Keys[0].Column)
	}
	if major >= 18 && !ix.GetTuple {
		return false, fmt.Sprintf("access method %s cannot return single tuples (no amgettuple)", ix.AM)
	}
	return true, ""
}

func (k IndexKey) name() string {
	if k.Attnum == 0 {
		return k.Expr
	}
	return k.Column
}

// TableLookup is how the apply worker of one subscription finds the rows
// of one of its tables on the subscriber.
type TableLookup struct {
	// Subscribed is the table as subscribed (pg_subscription_rel); Table
	// is the local table rows land in: it, or one of its leaf partitions.
	Subscribed string
	Table      string
	OID        uint32 // the local table's oid
	// RemoteFull says the publisher's table has REPLICA IDENTITY FULL
	// (false when the publisher was not read).
	RemoteFull bool
	Lookup
}

// ApplyLookups returns, for each table of the subscription named sub (each
// leaf of a partitioned one), how its apply worker finds rows under the
// subscriber's version: the lookups full-identity-no-index and
// extra-subscriber-indexes judge. Nil without the subscriber's snapshot.
func ApplyLookups(s Snapshots, sub string) []TableLookup {
	var out []TableLookup
	for _, l := range links(s) {
		if l.Sub.Name != sub || l.Local == nil {
			continue
		}
		full := l.Remote != nil && l.Remote.ReplicaIdentity == "full"
		for _, t := range s.Subscriber.leaves(l.Local) {
			out = append(out, TableLookup{Subscribed: l.Rel.Table, Table: t.Qualified(), OID: t.OID, RemoteFull: full,
				Lookup: ApplyLookup(s.Subscriber.Version.Major, *t, full, l.RemoteColumns)})
		}
	}
	return out
}

// appliedTables lists once each table the apply worker writes for
// subscription sub ("" every subscription), in the links' order: each
// subscribed table on the subscriber, then the leaves of a partitioned one.
func appliedTables(s Snapshots, sub string) []*Table {
	var out []*Table
	seen := map[string]bool{}
	for _, l := range links(s) {
		if l.Local == nil || sub != "" && l.Sub.Name != sub {
			continue
		}
		for _, t := range append([]*Table{l.Local}, s.Subscriber.leaves(l.Local)...) {
			if !seen[t.Qualified()] {
				seen[t.Qualified()] = true
				out = append(out, t)
			}
		}
	}
	return out
}
