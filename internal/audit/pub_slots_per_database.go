package audit

import (
	"fmt"
	"sort"
)

// CheckSlotsPerDatabase is the ID of slotsPerDatabase: its page is docs/checks/slots-per-database.md.
const CheckSlotsPerDatabase CheckID = "slots-per-database"

// slotsPerDatabase: each logical slot decodes all WAL of its database.
var slotsPerDatabase = Check{
	ID:       CheckSlotsPerDatabase,
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
			objects := []string{"database " + id(db)}
			for _, sl := range slots {
				objects = append(objects, "slot "+id(sl))
			}
			out = append(out, Finding{
				Objects: objects,
				Found:   fmt.Sprintf("Database %s has %d logical slots: %s.", id(db), len(slots), ids(slots)),
				Why: "Each logical slot has its own walsender that reads and decodes every transaction of the database, " +
					"whatever its publication publishes (measured with 4 partitions, 4 publications, 4 subscriptions: each of 4 slots decoded every transaction, " +
					fmt.Sprintf("about 1.59M each): %d slots cost %d times the decoding CPU and reorder-buffer memory.", len(slots), len(slots)),
				Fix: "Subscriptions to the same subscriber database can usually be one subscription with several " +
					"publications; drop the slots no consumer uses (see inactive-slot, which names them). Keep separate " +
					"slots where apply parallelism is worth the decoding.",
			})
		}
		return out
	},
}
