package audit

import (
	"fmt"
	"strings"
)

// partitionedPublication: a partitioned table published as its partitions.
var partitionedPublication = Check{
	ID:       "partitioned-publication",
	Title:    "partitioned tables and publish_via_partition_root",
	Severity: Info,
	Side:     PublisherSide,
	Needs:    []Section{PubPublications, PubTables},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		var out []Finding
		for _, root := range p.Tables {
			if root.Kind != "partitioned table" || root.Partitions == 0 {
				continue
			}
			for _, pub := range p.Publications {
				if pub.ViaRoot {
					continue
				}
				var leaves []string
				for _, t := range p.Tables {
					if t.PartitionOf != root.Qualified() {
						continue
					}
					for _, e := range t.Published {
						if e.Publication == pub.Name {
							leaves = append(leaves, t.Qualified())
						}
					}
				}
				// Only a publication of the whole table: one that lists
				// some partitions on purpose (one per subscription) is a
				// design of its own.
				if len(leaves) < root.Partitions {
					continue
				}
				out = append(out, Finding{
					Objects: []string{"table " + root.Qualified(), "publication " + pub.Name},
					Found: fmt.Sprintf("Partitioned table %s (%s, %d partitions) is published by %s as its partitions "+
						"(publish_via_partition_root = false): %s.", root.Qualified(), root.Strategy, root.Partitions, pub.Name, strings.Join(leaves, ", ")),
					Why: "Each partition is replicated as a table of its own: the subscriber needs tables with the same " +
						"partition names, a new partition needs ALTER SUBSCRIPTION ... REFRESH PUBLICATION, re-partitioning " +
						"either side breaks replication, and the partitions still share one walsender and one apply worker.",
					Fix: fmt.Sprintf("To replicate into a table of any layout on the subscriber: ALTER PUBLICATION %s SET "+
						"(publish_via_partition_root = true); then ALTER SUBSCRIPTION <name> REFRESH PUBLICATION; on the subscriber.", ident(pub.Name)),
				})
			}
		}
		return out
	},
}
