package audit

import "fmt"

// decodingSpill: large transactions spilled to disk by the walsender.
var decodingSpill = Check{
	ID:          "decoding-spill",
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
				"logical_decoding_work_mem = %s.", sl.Name, byteSize(st.SpillBytes), plural(st.SpillTxns, "transaction"),
				plural(st.SpillCount, "spill"), 100*share, byteSize(st.TotalBytes), period, p.Settings.Show("logical_decoding_work_mem"))
			if st.StreamTxns > 0 {
				found += fmt.Sprintf(" It streamed %s (%s).", plural(st.StreamTxns, "transaction"), byteSize(st.StreamBytes))
			}
			fix := "Let the subscriber stream large transactions (14+): ALTER SUBSCRIPTION <name> SET (streaming = on); " +
				"or raise ALTER SYSTEM SET logical_decoding_work_mem = '256MB'; SELECT pg_reload_conf();"
			if sub := s.Subscriber.subscriptionForSlot(sl.Name); sub != nil && sub.Streaming == "off" {
				found += fmt.Sprintf(" Its subscription %s has streaming = off.", sub.Name)
				fix = fmt.Sprintf("ALTER SUBSCRIPTION %s SET (streaming = on); -- on the subscriber; or raise "+
					"ALTER SYSTEM SET logical_decoding_work_mem = '256MB'; SELECT pg_reload_conf();", ident(sub.Name))
			}
			fix += fmt.Sprintf(" Then SELECT pg_stat_reset_replication_slot('%s'); to count afresh.", sl.Name)
			out = append(out, Finding{
				Severity: sev,
				Objects:  []string{"slot " + sl.Name},
				Found:    found,
				Why: "A transaction whose decoded changes exceed logical_decoding_work_mem is written to spill files under " +
					"pg_replslot and read back at commit: extra disk I/O in the walsender (ReorderBufferWrite/Read waits), " +
					"and nothing of it reaches the subscriber before the commit is decoded.",
				Fix: fix,
			})
		}
		return out
	},
}
