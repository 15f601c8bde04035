package lab

import (
	"fmt"
	"strconv"
)

// Layout is how the hot table is laid out and replicated (seed 000).
type Layout string

// Layouts from seed 000.
const (
	// Flat is one plain table, one publication, one subscription.
	Flat Layout = "flat"
	// Hash4x1 is the table hash-partitioned in 4 with one publication on the
	// root and one subscription.
	Hash4x1 Layout = "hash4-1"
	// Hash4x4 is 4 publications with one partition each and 4 subscriptions.
	Hash4x4 Layout = "hash4-4"
)

// PadLength is the length of the hot table's pad column, chosen so a 20-row
// UPDATE decodes to about 5 kB as in seed 000.
const PadLength = 100

// tableDDL creates the hot table for the layout.
func tableDDL(l Layout) []string {
	if l == Flat {
		return []string{"CREATE TABLE hot (id bigint PRIMARY KEY, k bigint NOT NULL, v bigint NOT NULL, pad text NOT NULL)"}
	}
	ddl := []string{"CREATE TABLE hot (id bigint PRIMARY KEY, k bigint NOT NULL, v bigint NOT NULL, pad text NOT NULL) PARTITION BY HASH (id)"}
	for i := 0; i < 4; i++ {
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE hot_p%d PARTITION OF hot FOR VALUES WITH (MODULUS 4, REMAINDER %d)", i, i))
	}
	return ddl
}

// fillSQL loads rows into hot.
func fillSQL(rows int) string {
	return fmt.Sprintf("INSERT INTO hot SELECT g, 0, 0, repeat('x', %d) FROM generate_series(1, %d) g", PadLength, rows)
}

// publications returns name -> CREATE PUBLICATION statement; filter, if not
// empty, is a row filter (PostgreSQL 15+) on the flat table.
func publications(l Layout, filter string) map[string]string {
	switch l {
	case Hash4x1:
		return map[string]string{"lab_pub": "CREATE PUBLICATION lab_pub FOR TABLE hot"}
	case Hash4x4:
		m := map[string]string{}
		for i := 0; i < 4; i++ {
			m[fmt.Sprintf("lab_pub_%d", i)] = fmt.Sprintf("CREATE PUBLICATION lab_pub_%d FOR TABLE hot_p%d", i, i)
		}
		return m
	}
	if filter != "" {
		return map[string]string{"lab_pub": "CREATE PUBLICATION lab_pub FOR TABLE hot WHERE (" + filter + ")"}
	}
	return map[string]string{"lab_pub": "CREATE PUBLICATION lab_pub FOR TABLE hot"}
}

// subscriptionName is the subscription (and slot) for a publication.
func subscriptionName(pub string) string { return "lab_sub" + pub[len("lab_pub"):] }

// subIndexCols are the columns of the subscriber-only indexes, in order.
var subIndexCols = []string{"k", "v", "pad", "k, v"}

// subIndexName names the i-th subscriber-only index.
func subIndexName(i int) string { return "hot_extra_" + strconv.Itoa(i) }

// subIndexDDL creates n secondary indexes on the subscriber's hot table
// (how: "CREATE INDEX" or "CREATE INDEX CONCURRENTLY").
func subIndexDDL(n int, how string) []string {
	var ddl []string
	for i := 0; i < n && i < len(subIndexCols); i++ {
		ddl = append(ddl, how+" "+subIndexName(i)+" ON hot ("+subIndexCols[i]+")")
	}
	return ddl
}

// replicaIdentityFullDDL sets REPLICA IDENTITY FULL on hot (and on each
// partition, which is what a partitioned table's changes are published as).
func replicaIdentityFullDDL(l Layout) []string {
	ddl := []string{"ALTER TABLE hot REPLICA IDENTITY FULL"}
	if l != Flat {
		for i := 0; i < 4; i++ {
			ddl = append(ddl, fmt.Sprintf("ALTER TABLE hot_p%d REPLICA IDENTITY FULL", i))
		}
	}
	return ddl
}
