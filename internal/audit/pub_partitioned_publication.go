package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckPartitionedPublication is the ID of partitionedPublication: its page is docs/checks/partitioned-publication.md.
const CheckPartitionedPublication CheckID = "partitioned-publication"

// partitionedPublication: a partitioned table published as its partitions.
var partitionedPublication = Check{
	ID:       CheckPartitionedPublication,
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
					Objects: []string{"table " + root.Qualified(), "publication " + id(pub.Name)},
					Found: fmt.Sprintf("Partitioned table %s (%s, %d partitions) is published by %s as its partitions "+
						"(publish_via_partition_root = false): %s.", root.Qualified(), root.Strategy, root.Partitions, id(pub.Name), strings.Join(leaves, ", ")),
					Why: "Each partition is replicated as a table of its own: the subscriber needs tables with the same " +
						"partition names, a new partition needs ALTER SUBSCRIPTION ... REFRESH PUBLICATION, re-partitioning " +
						"either side breaks replication, and the partitions still share one walsender and one apply worker.",
					Fix: fmt.Sprintf("To replicate into a table of any layout on the subscriber: publish %s via the partition root, "+
						"then refresh the publication of every subscription to %s on the subscriber%s.", id(pub.Name), id(pub.Name), subsOf(s, pub.Name)),
					Run: append([]quote.Statement{quote.SQL("ALTER PUBLICATION %I SET (publish_via_partition_root = true);", pub.Name).OnServer(onPublisher).
						WithNote("changes every table of the publication, not only this one")}, refreshPublication(s, pub.Name)...),
				})
			}
		}
		return out
	},
}

// subscribersTo are the subscriptions of the subscriber snapshot that
// subscribe to publication pub (nil without a subscriber snapshot).
func subscribersTo(s Snapshots, pub string) []string {
	if s.Subscriber == nil {
		return nil
	}
	var out []string
	for _, sub := range s.Subscriber.Subscriptions {
		if slices.Contains(sub.Publications, pub) {
			out = append(out, sub.Name)
		}
	}
	return out
}

// subsOf names them for prose: " (a, b)", or what to look for when unknown.
func subsOf(s Snapshots, pub string) string {
	if subs := subscribersTo(s, pub); len(subs) > 0 {
		return " (" + ids(subs) + ")"
	}
	return " (lagscope did not read a subscriber of it: each subscription whose publications include it)"
}

// refreshPublication refreshes every known subscription to pub.
func refreshPublication(s Snapshots, pub string) []quote.Statement {
	var out []quote.Statement
	for _, sub := range subscribersTo(s, pub) {
		out = append(out, quote.SQL("ALTER SUBSCRIPTION %I REFRESH PUBLICATION;", sub).OnServer(onSubscriber))
	}
	return out
}
