package reproduce

import (
	"fmt"
	"math"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/units"
)

// each maps every result to one number.
func each(rs []*lab.Result, f func(*lab.Result) float64) []float64 {
	v := make([]float64, 0, len(rs))
	for _, r := range rs {
		v = append(v, f(r))
	}
	return v
}

func consumed(r *lab.Result) float64   { return r.ConsumedMBps }
func generated(r *lab.Result) float64  { return r.GeneratedMBps }
func decoded(r *lab.Result) float64    { return r.DecodedMBps }
func applyCPU(r *lab.Result) float64   { return 100 * r.Apply.CPUShare }
func senderCPU(r *lab.Result) float64  { return 100 * r.Walsender.CPUShare }
func senderRunq(r *lab.Result) float64 { return 100 * r.Walsender.RunqueueShare }
func senderWrite(r *lab.Result) float64 {
	return 100 * r.Walsender.Share("WalSenderWriteData")
}
func applyIdle(r *lab.Result) float64  { return 100 * r.Apply.Share("LogicalApplyMain") }
func applyOnCPU(r *lab.Result) float64 { return 100 * r.Apply.Share("CPU") }

// seed000 holds seed 000's figures per layout, as published.
var seed000 = map[string]struct {
	idleConsumed, idleApply, idleSender                    string
	busyConsumed, busyGenerated, busySender, busyApplyIdle string
}{
	"flat":    {"66.0 / 68.6", "97% / 98%", "29% / 30%", "46.8 / 44.4", "182.4 / 196.0", "28-30%", "22% / 34%"},
	"hash4-1": {"52.7 / 53.6", "98% / 98%", "23% / 24%", "34.4 / 33.7", "119.8 / 123.8", "23-24%", "31% / 32%"},
	"hash4-4": {"123.2 / 126.4", "365% / 375% (4)", "143% / 145% (4)", "59.4 / 59.8", "99.6 / 98.8", "about 24% each of 4", "63% / 64%"},
}

func idleSection(idle map[string][]*lab.Result) Section {
	s := Section{Title: "1. Publisher idle: the single apply worker is the limit"}
	for _, l := range []string{"flat", "hash4-1", "hash4-4"} {
		rs := idle[l]
		if len(rs) == 0 {
			continue
		}
		f := seed000[l]
		s.Rows = append(s.Rows,
			NewRow("idle, "+l+": consumed", f.idleConsumed, "MB/s", each(rs, consumed)),
			NewRow("idle, "+l+": apply CPU", f.idleApply, "%", each(rs, applyCPU)),
			NewRow("idle, "+l+": walsender CPU", f.idleSender, "%", each(rs, senderCPU)))
		if l == "flat" {
			s.Rows = append(s.Rows,
				NewRow("idle, flat: apply on CPU (no wait event)", "99%", "% probes", each(rs, applyOnCPU)),
				NewRow("idle, flat: walsender in WalSenderWriteData", "65-70%", "% probes", each(rs, senderWrite)))
		}
	}
	flat := idle["flat"]
	if len(flat) > 0 && len(idle["hash4-1"]) > 0 {
		s.Ratios = append(s.Ratios, NewRatio("idle hash4-1 vs flat: consumed", 0.79,
			ratioOf(NewRow("", "", "", each(idle["hash4-1"], consumed)), NewRow("", "", "", each(flat, consumed))), 0.2, ""))
	}
	if len(flat) > 0 && len(idle["hash4-4"]) > 0 {
		s.Ratios = append(s.Ratios, NewRatio("idle hash4-4 vs flat: consumed", 1.85,
			ratioOf(NewRow("", "", "", each(idle["hash4-4"], consumed)), NewRow("", "", "", each(flat, consumed))), 0,
			"not comparable: 4 apply workers on 1 core here"))
	}
	return s
}

func busySection(busy map[string][]*lab.Result) Section {
	s := Section{Title: "2. Publisher saturated: nothing drains, the walsender gets too little CPU"}
	for _, l := range []string{"flat", "hash4-1", "hash4-4"} {
		rs := busy[l]
		if len(rs) == 0 {
			continue
		}
		f := seed000[l]
		s.Rows = append(s.Rows,
			NewRow("busy, "+l+": consumed", f.busyConsumed, "MB/s", each(rs, consumed)),
			NewRow("busy, "+l+": generated", f.busyGenerated, "MB/s", each(rs, generated)),
			NewRow("busy, "+l+": walsender CPU", f.busySender, "%", each(rs, senderCPU)),
			NewRow("busy, "+l+": walsender run queue", "", "%", each(rs, senderRunq)),
			NewRow("busy, "+l+": apply waiting for data (LogicalApplyMain)", f.busyApplyIdle, "% probes", each(rs, applyIdle)))
	}
	if rs := busy["flat"]; len(rs) > 0 {
		c, g := NewRow("", "", "", each(rs, consumed)), NewRow("", "", "", each(rs, generated))
		s.Ratios = append(s.Ratios, NewRatio("busy flat: consumed vs generated", 0.24, ratioOf(c, g), 0,
			"depends on how fast this host's publisher generates"))
	}
	if rs := busy["hash4-4"]; len(rs) > 0 {
		s.Ratios = append(s.Ratios, NewRatio("busy hash4-4: total_txns of the least vs the most busy slot", 0.998,
			NewRow("", "", "", each(rs, slotEvenness)).Median, 0, "shown: the slots stand at slightly different positions when the window ends"))
		s.Notes = append(s.Notes, "hash4-4: every slot decodes every transaction (each 20-row range touches all 4 partitions), so the slots' total_txns are equal.")
	}
	return s
}

func linkSection(link map[units.ByteRate][]*lab.Result) Section {
	s := Section{Title: "3. Bandwidth-limited link (proxy between subscriber and publisher)"}
	seeds := map[units.ByteRate][5]string{
		8_000_000:  {"10.6", "6%", "93%", "17%", "82%"},
		16_000_000: {"19.7", "12%", "90%", "29%", "73%"},
	}
	for _, rate := range linkRates {
		rs := link[rate]
		if len(rs) == 0 {
			continue
		}
		f, n := seeds[rate], fmt.Sprintf("link %s: ", rate)
		s.Rows = append(s.Rows,
			NewRow(n+"consumed", f[0], "MB/s", each(rs, consumed)),
			NewRow(n+"decoded (sent_lsn)", "", "MB/s", each(rs, decoded)),
			NewRow(n+"link measured", "", "MB/s", each(rs, linkMeasured)),
			NewRow(n+"host CPU busy", "", "% of all CPUs", each(rs, func(r *lab.Result) float64 { return 100 * r.HostBusy })),
			NewRow(n+"walsender CPU", f[1], "%", each(rs, senderCPU)),
			NewRow(n+"walsender in WalSenderWriteData", f[2], "% probes", each(rs, senderWrite)),
			NewRow(n+"apply CPU", f[3], "%", each(rs, applyCPU)),
			NewRow(n+"apply in LogicalApplyMain", f[4], "% probes", each(rs, applyIdle)))
	}
	if len(link[8_000_000]) > 0 && len(link[16_000_000]) > 0 {
		s.Ratios = append(s.Ratios, NewRatio("link 16 vs 8 MB/s: consumed", 1.86,
			ratioOf(NewRow("", "", "", each(link[16_000_000], consumed)), NewRow("", "", "", each(link[8_000_000], consumed))), 0.2,
			notLinkBound(link[16_000_000], 16_000_000)))
	}
	if len(link[4_000_000]) > 0 && len(link[8_000_000]) > 0 {
		s.Ratios = append(s.Ratios, NewRatio("link 8 vs 4 MB/s: consumed (the seed's doubling)", 1.86,
			ratioOf(NewRow("", "", "", each(link[8_000_000], consumed)), NewRow("", "", "", each(link[4_000_000], consumed))), 0.2,
			notLinkBound(link[8_000_000], 8_000_000)))
	}
	s.Notes = append(s.Notes, "consumed counts WAL, the link counts protocol bytes: the stream is smaller than the WAL it comes from, so consumed exceeds the link rate (as in the seed).")
	return s
}

func linkMeasured(r *lab.Result) float64 {
	if r.Link == nil {
		return math.NaN()
	}
	return r.Link.MeasuredMBps
}

// backlogLag is the unconfirmed WAL a run must still have when its window
// ends to count for "where the lag shows": a few MB are always in flight
// between sent_lsn and the subscriber's flush (socket buffers, the apply
// queue), so a nearly drained run shows a lower share that says nothing
// about where a backlog sits (a quick run ending at 20 MB showed 70%).
const backlogLag = 64 << 20

// lagSection is seed 000's section 4: where the unconfirmed WAL sits in every
// run that still had a backlog when its window ended, and the big transaction.
func lagSection(idle, busy map[string][]*lab.Result, link map[units.ByteRate][]*lab.Result, big []bigTxn, plan bottleneckPlan) Section {
	s := Section{Title: "4. Where the lag shows up in pg_stat_replication"}
	var all []*lab.Result
	for _, m := range []map[string][]*lab.Result{idle, busy} {
		for _, rs := range m {
			all = append(all, rs...)
		}
	}
	for _, rs := range link {
		all = append(all, rs...)
	}
	var backlog []*lab.Result
	for _, r := range all {
		if !r.DrainedEarly && r.Lag.Total >= backlogLag {
			backlog = append(backlog, r)
		}
	}
	s.Rows = append(s.Rows,
		NewRow("unconfirmed WAL before sent_lsn (every run with a backlog)", ">= 98% in every run", "%",
			each(backlog, func(r *lab.Result) float64 { return 100 * r.Lag.BeforeSentShare })),
		NewRow("largest sent - flush per run", "never above 96 MB", "MB",
			each(all, func(r *lab.Result) float64 { return mb(r.Lag.MaxSentMinusFlush) })))
	rows, ratios := bigRows(big)
	s.Rows = append(s.Rows, rows...)
	s.Ratios = append(s.Ratios, ratios...)
	if len(big) == 2 {
		s.Notes = append(s.Notes, fmt.Sprintf("one UPDATE of all %d rows with the subscriber caught up; logical_decoding_work_mem %s (not streamed) vs %s (streamed).", plan.rows, big[0].WorkMem, big[1].WorkMem))
	}
	return s
}

// riSection is seed 000's section 5: REPLICA IDENTITY FULL with the primary
// key on both sides against the default identity, publisher idle, flat.
func riSection(ri map[bool][]*lab.Result) Section {
	s := Section{Title: "5. REPLICA IDENTITY FULL, primary key present on both sides"}
	def, full := ri[false], ri[true]
	if len(def) == 0 || len(full) == 0 {
		return s
	}
	dt, ft := NewRow("default identity: applied txn/s", "15,060 / 15,527", "txn/s", each(def, txnsPerSecond)),
		NewRow("RI FULL: applied txn/s", "15,115", "txn/s", each(full, txnsPerSecond))
	db, fb := NewRow("default identity: decoded bytes per txn", "5,060", "bytes", each(def, bytesPerTxn)),
		NewRow("RI FULL: decoded bytes per txn", "8,520", "bytes", each(full, bytesPerTxn))
	s.Rows = append(s.Rows, dt, ft, db, fb,
		NewRow("default identity: apply CPU", "", "%", each(def, applyCPU)),
		NewRow("RI FULL: apply CPU", "", "%", each(full, applyCPU)))
	s.Ratios = append(s.Ratios,
		NewRatio("RI FULL vs default: applied txn/s", 0.99, ratioOf(ft, dt), 0.2, ""),
		NewRatio("RI FULL vs default: decoded bytes per txn", 1.68, ratioOf(fb, db), 0.2, ""))
	s.Notes = append(s.Notes, "applied txn/s = transactions the slot decoded in the window (pg_stat_replication_slots.total_txns) over its length: a walsender decodes no further ahead than the subscriber takes.")
	return s
}

// notLinkBound explains, from the measurement, why a link case is not
// limited by its link ("" when it is: the link carried at least 90% of its
// rate). Then doubling the link cannot double the drain, and the ratio is
// not compared.
func notLinkBound(rs []*lab.Result, rate units.ByteRate) string {
	carried := NewRow("", "", "", each(rs, linkMeasured)).Median
	if math.IsNaN(carried) || carried >= 0.9*float64(rate)/1e6 {
		return ""
	}
	return fmt.Sprintf("not comparable: the link is not the limit at %s here (it carried %s, walsender in WalSenderWriteData %.0f%% of probes, host CPU %.0f%% busy)",
		rate, units.FormatRate(carried*1e6), NewRow("", "", "", each(rs, senderWrite)).Median, NewRow("", "", "", each(rs, func(r *lab.Result) float64 { return 100 * r.HostBusy })).Median)
}
