package audit

import (
	"fmt"
	"sort"
	"strings"
)

// slotsPerDatabase: each logical slot decodes all WAL of its database.
var slotsPerDatabase = Check{
	ID:       "slots-per-database",
	Title:    "several logical slots decoding the same database",
	Severity: Info,
	Side:     PublisherSide,
	Needs:    []Section{PubSlots},
	Run: func(s Snapshots) []Finding {
		byDB := map[string][]string{}
		for _, sl := range s.Publisher.Slots {
			if sl.Type == "logical" && !sl.Temporary {
				byDB[sl.Database] = append(byDB[sl.Database], sl.Name)
			}
		}
		var out []Finding
		for _, db := range sortedKeys(byDB) {
			slots := byDB[db]
			if len(slots) < 2 {
				continue
			}
			sort.Strings(slots)
			objects := []string{"database " + db}
			for _, sl := range slots {
				objects = append(objects, "slot "+sl)
			}
			out = append(out, Finding{
				Objects: objects,
				Found:   fmt.Sprintf("Database %s has %d logical slots: %s.", db, len(slots), strings.Join(slots, ", ")),
				Why: "Each logical slot has its own walsender that reads and decodes every transaction of the database, " +
					"whatever its publication publishes (measured with 4 partitions, 4 publications, 4 subscriptions: each of 4 slots decoded every transaction, " +
					fmt.Sprintf("about 1.59M each): %d slots cost %d times the decoding CPU and reorder-buffer memory.", len(slots), len(slots)),
				Fix: "Subscriptions to the same subscriber database can usually be one subscription with several " +
					"publications (CREATE SUBSCRIPTION ... PUBLICATION a, b); drop slots no consumer uses " +
					"(SELECT pg_drop_replication_slot('<name>')). Keep separate slots where apply parallelism is worth the decoding.",
			})
		}
		return out
	},
}
