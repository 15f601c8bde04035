package audit

import "fmt"

// streamingOff: large transactions are sent only at commit.
var streamingOff = Check{
	ID:          "streaming-off",
	Title:       "large transactions are streamed",
	Severity:    Info,
	MinVersion:  14,
	VersionNote: "streaming of in-progress transactions is new in 14",
	Side:        SubscriberSide,
	Needs:       []Section{SubSubscriptions},
	Applies:     publisherAtLeast(14, "streaming"),
	Run: func(s Snapshots) []Finding {
		var out []Finding
		for _, sub := range s.Subscriber.Subscriptions {
			if sub.Streaming != "off" {
				continue
			}
			fix := fmt.Sprintf("ALTER SUBSCRIPTION %s SET (streaming = on);", ident(sub.Name))
			parallel := s.Subscriber.Version.Major >= 16 && (s.Publisher == nil || s.Publisher.Version.Major >= 16)
			if parallel {
				fix += " -- or (streaming = parallel): large transactions are then applied while they arrive by " +
					"parallel apply workers (max_parallel_apply_workers_per_subscription, from max_logical_replication_workers)"
			}
			out = append(out, Finding{
				Objects: []string{"subscription " + sub.Name},
				Found:   fmt.Sprintf("Subscription %s has streaming = off.", sub.Name),
				Why: "Without streaming the publisher decodes a large transaction in full, spilling it to disk past " +
					"logical_decoding_work_mem, and sends it only at commit: the subscriber starts applying it only then, " +
					"so a long transaction adds its whole duration to the lag. With streaming = on the subscriber writes " +
					"the streamed changes to files and applies them at commit; parallel (16+ on both sides) applies them " +
					"as they arrive.",
				Fix: fix,
			})
		}
		return out
	},
}
