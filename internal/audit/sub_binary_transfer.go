package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckBinaryTransfer is the ID of binaryTransfer: its page is docs/checks/binary-transfer.md.
const CheckBinaryTransfer CheckID = "binary-transfer"

// binaryTransfer: text transfer converts every value twice.
var binaryTransfer = Check{
	ID:          CheckBinaryTransfer,
	Title:       "binary transfer where the types allow it",
	Severity:    Info,
	MinVersion:  14,
	VersionNote: "the binary option is new in 14",
	Side:        SubscriberSide,
	Needs:       []Section{SubSubscriptions},
	Applies:     publisherAtLeast(14, "binary transfer"),
	Run: func(s Snapshots) []Finding {
		var out []Finding
		for _, sub := range s.Subscriber.Subscriptions {
			if sub.Binary {
				continue
			}
			out = append(out, Finding{
				Objects: []string{"subscription " + id(sub.Name)},
				Found:   fmt.Sprintf("Subscription %s has binary = false: every value travels as text.", id(sub.Name)),
				Why: "Text transfer runs each column's output function on the publisher and its input function on the " +
					"subscriber; binary = true skips both (measured: about 10% less subscriber CPU, 1% less in total). " +
					"Caveats: the subscriber's column types must match the publisher's exactly, every type needs binary " +
					"send/receive functions on both sides (cross-version and extension types can fail), and with a 16+ " +
					"publisher the initial table copy is binary too.",
				Fix: "Set binary = true on the subscription, after checking that the column types match (see column-mismatch).",
				Run: []quote.Statement{quote.SQL("ALTER SUBSCRIPTION %I SET (binary = true);", sub.Name).OnServer(onSubscriber).
					WithNote("after checking the column types match (see column-mismatch)")},
			})
		}
		return out
	},
}

// publisherAtLeast is an Applies function: the publisher, when known, must run
// major or newer for feature.
func publisherAtLeast(major int, feature string) func(Snapshots) string {
	return func(s Snapshots) string {
		if s.Publisher != nil && s.Publisher.Version.Major < major {
			return fmt.Sprintf("the publisher runs PostgreSQL %d: %s needs %d+ on both sides", s.Publisher.Version.Major, feature, major)
		}
		return ""
	}
}
