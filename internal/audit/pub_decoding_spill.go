package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckDecodingSpill is the ID of decodingSpill: its page is docs/checks/decoding-spill.md.
const CheckDecodingSpill CheckID = "decoding-spill"

// decodingSpill: large transactions spilled to disk by the walsender.
var decodingSpill = Check{
	ID:          CheckDecodingSpill,
	Title:       "decoding does not spill to disk",
	Severity:    Warning,
	MinVersion:  14,
	VersionNote: "pg_stat_replication_slots is new in 14",
	Side:        PublisherSide,
	Needs:       []Section{PubSettings, PubSlots, PubSlotStats},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		var out []Finding
		for _, sl := range p.Slots {
			st := sl.Stats
			if st == nil || st.SpillBytes == 0 {
				continue
			}
			share := 1.0
			if st.TotalBytes > 0 {
				share = float64(st.SpillBytes) / float64(st.TotalBytes)
			}
			sev := Info
			if share >= 0.10 {
				sev = Warning
			}
			period := "since the slot was created"
			if st.StatsReset != nil {
				period = "since " + st.StatsReset.UTC().Format("2006-01-02 15:04 UTC")
			}
			found := fmt.Sprintf("Slot %s spilled %s to disk from %s (%s), %.0f%% of the %s it decoded, %s; "+
				"logical_decoding_work_mem = %s.", id(sl.Name), byteSize(st.SpillBytes), plural(st.SpillTxns, "transaction"),
				plural(st.SpillCount, "spill"), 100*share, byteSize(st.TotalBytes), period, p.Settings.Show("logical_decoding_work_mem"))
			if st.StreamTxns > 0 {
				found += fmt.Sprintf(" It streamed %s (%s).", plural(st.StreamTxns, "transaction"), byteSize(st.StreamBytes))
			}
			fix := fmt.Sprintf("Let the subscription that reads slot %s stream large transactions (14+: set streaming = on on it, "+
				"on the subscriber), or raise logical_decoding_work_mem on the publisher (to 256MB here). Then reset the "+
				"slot's statistics to count afresh.", id(sl.Name))
			var run []quote.Statement
			switch sub := s.Subscriber.subscriptionForSlot(sl.Name); {
			case sub != nil && sub.Streaming == "off":
				found += fmt.Sprintf(" Its subscription %s has streaming = off.", id(sub.Name))
				run = append(run, quote.SQL("ALTER SUBSCRIPTION %I SET (streaming = on);", sub.Name).OnServer(onSubscriber))
				fix = fmt.Sprintf("Let subscription %s stream large transactions, or raise logical_decoding_work_mem on the "+
					"publisher (to 256MB here) instead. Then reset the slot's statistics to count afresh.", id(sub.Name))
			case sub != nil:
				fix = "Raise logical_decoding_work_mem on the publisher (to 256MB here); its subscription streams already. " +
					"Then reset the slot's statistics to count afresh."
			}
			wm := alterSystem(onPublisher, "logical_decoding_work_mem", "256MB", false)
			wm[0] = wm[0].WithNote("up to 256MB of memory per walsender")
			if len(run) > 0 {
				for i := range wm {
					wm[i] = wm[i].Or("of streaming")
				}
			}
			run = append(run, wm...)
			run = append(run, quote.SQL("SELECT pg_stat_reset_replication_slot(%L);", sl.Name).OnServer(onPublisher).
				WithNote("after the change, to count afresh"))
			out = append(out, Finding{
				Severity: sev,
				Objects:  []string{"slot " + id(sl.Name)},
				Found:    found,
				Why: "A transaction whose decoded changes exceed logical_decoding_work_mem is written to spill files under " +
					"pg_replslot and read back at commit: extra disk I/O in the walsender (ReorderBufferWrite/Read waits), " +
					"and nothing of it reaches the subscriber before the commit is decoded.",
				Fix: fix,
				Run: run,
			})
		}
		return out
	},
}
