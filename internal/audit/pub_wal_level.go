package audit

import "fmt"

// CheckWALLevel is the ID of walLevel: its page is docs/checks/wal-level.md.
const CheckWALLevel CheckID = "wal-level"

// walLevel: logical decoding needs wal_level = logical.
var walLevel = Check{
	ID:       CheckWALLevel,
	Title:    "wal_level is logical",
	Severity: Error,
	Side:     PublisherSide,
	Needs:    []Section{PubSettings},
	Run: func(s Snapshots) []Finding {
		v, ok := s.Publisher.Settings["wal_level"]
		if !ok || v.Value == "logical" {
			return nil
		}
		return []Finding{{
			Objects: []string{"setting wal_level"},
			Found:   fmt.Sprintf("wal_level = %s on the publisher.", v.Value),
			Why: "Logical decoding needs wal_level = logical: no logical slot can be created, so no subscription can " +
				"start, and a server that has logical slots refuses to start with a lower level.",
			Fix: "Set wal_level to logical on the publisher and restart it.",
			Run: alterSystem(onPublisher, "wal_level", "logical", true),
		}}
	},
}
