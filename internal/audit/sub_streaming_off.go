package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/pgversion"
	"github.com/lagscope/lagscope/internal/quote"
)

// CheckStreamingOff is the ID of streamingOff: its page is docs/checks/streaming-off.md.
const CheckStreamingOff CheckID = "streaming-off"

// streamingOff: large transactions are sent only at commit.
var streamingOff = Check{
	ID:          CheckStreamingOff,
	Title:       "large transactions are streamed",
	Severity:    Info,
	MinVersion:  pgversion.Streaming.Since,
	VersionNote: "streaming of in-progress transactions is new in 14",
	Side:        SubscriberSide,
	Needs:       []Section{SubSubscriptions},
	Applies:     publisherAtLeast(pgversion.Streaming.Since, pgversion.Streaming.Name),
	Run: func(s Snapshots) []Finding {
		var out []Finding
		for _, sub := range s.Subscriber.Subscriptions {
			if sub.Streaming != "off" {
				continue
			}
			fix := "Set streaming = on on the subscription."
			run := []quote.Statement{quote.SQL("ALTER SUBSCRIPTION %I SET (streaming = on);", sub.Name).OnServer(onSubscriber)}
			parallel := pgversion.ParallelApply.OnBoth(publisherMajor(s), s.Subscriber.Version.Major)
			if parallel {
				fix = "Set streaming = on on the subscription, or parallel: large transactions are then applied while they " +
					"arrive by parallel apply workers (max_parallel_apply_workers_per_subscription, taken from max_logical_replication_workers)."
				run = append(run, quote.SQL("ALTER SUBSCRIPTION %I SET (streaming = parallel);", sub.Name).OnServer(onSubscriber).
					Or("for parallel apply (16+ on both sides)"))
			}
			out = append(out, Finding{
				Objects: []string{"subscription " + id(sub.Name)},
				Found:   fmt.Sprintf("Subscription %s has streaming = off.", id(sub.Name)),
				Why: "Without streaming the publisher decodes a large transaction in full, spilling it to disk past " +
					"logical_decoding_work_mem, and sends it only at commit: the subscriber starts applying it only then, " +
					"so a long transaction adds its whole duration to the lag. With streaming = on the subscriber writes " +
					"the streamed changes to files and applies them at commit; parallel (16+ on both sides) applies them " +
					"as they arrive.",
				Fix: fix,
				Run: run,
			})
		}
		return out
	},
}

// publisherMajor is the publisher's major version (0 when not read).
func publisherMajor(s Snapshots) int {
	if s.Publisher == nil {
		return 0
	}
	return s.Publisher.Version.Major
}
