package diagnose

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
)

// withApplyWork adds to p what the subscriber did per table of its
// subscription in the window, and its apply workers' own WAL and relation
// I/O (18+).
func withApplyWork(p *report.Path, rec *sample.Recording, snaps *audit.Snapshots) {
	if oid := subOID(rec, snaps, p.Subscription); oid != 0 {
		p.Tables = measure.TablesIn(measure.TablesOf(rec), oid)
	}
	if b, ok := measure.ApplyWAL(rec, p.Subscription); ok {
		p.ApplyWALBytes = b
	}
	if io, ok := measure.ApplyIO(rec, p.Subscription); ok {
		p.ApplyIO = &io
	}
}

// subOID is the subscription's oid, as the ticks read it or else as the
// setup did (0 when neither has it: 13 shows it only with a worker).
func subOID(rec *sample.Recording, snaps *audit.Snapshots, name string) int64 {
	for _, tk := range rec.Ticks {
		for _, s := range tk.Subs {
			if s.Name == name && s.OID != 0 {
				return s.OID
			}
		}
	}
	if snaps != nil && snaps.Subscriber != nil {
		for _, s := range snaps.Subscriber.Subscriptions {
			if s.Name == name {
				return int64(s.OID)
			}
		}
	}
	return 0
}

// lookupOf is how p's apply worker finds rows of the table named name: as
// subscribed (asSubscribed, the publisher's name) or as a local leaf.
func lookupOf(p *report.Path, snaps *audit.Snapshots, name string, asSubscribed bool) (audit.TableLookup, bool) {
	for _, lk := range audit.ApplyLookups(*snaps, p.Subscription) {
		if asSubscribed && lk.Subscribed == name || !asSubscribed && lk.Table == name {
			return lk, true
		}
	}
	return audit.TableLookup{}, false
}

// work is the window's counters of the local table oid ("false" when they
// were not read).
func work(p *report.Path, oid uint32) (measure.TableWork, bool) {
	for _, w := range p.Tables {
		if w.RelID == int64(oid) {
			return w, true
		}
	}
	return measure.TableWork{}, false
}

// scanned says what the sequential scans of a FULL table without a usable
// index read in the window; "" when its counters were not read.
func scanned(p *report.Path, snaps *audit.Snapshots, table string) string {
	lk, ok := lookupOf(p, snaps, table, false)
	if !ok {
		return ""
	}
	w, ok := work(p, lk.OID)
	switch {
	case !ok:
		return ""
	case w.Updated+w.Deleted == 0:
		// The apply worker's counts reach the statistics at its commits.
		return "; pg_stat_user_tables counted no UPDATE or DELETE of it in the window (a transaction's changes count at its commit)"
	}
	return fmt.Sprintf("; measured in the window: %s rows read per second, %s per row changed (%s sequential scans in %s)",
		units.FormatCount(w.PerSecond(w.SeqRead)), units.FormatCount(w.SeqReadPerChange()), units.FormatCount(float64(w.SeqScans)), units.FormatSeconds(w.Seconds))
}

// foundBy names the index the apply worker finds rows of a FULL table by
// (16+: a usable index) with the scans counted in the window; "" when it
// scans the table (full-identity-no-index says so) or the setup lacks it.
func foundBy(p *report.Path, snaps *audit.Snapshots, table string) string {
	lk, ok := lookupOf(p, snaps, table, true)
	if !ok || lk.Index == "" {
		return ""
	}
	s := fmt.Sprintf("; the subscriber (PostgreSQL %d) finds its rows by %s %s", snaps.Subscriber.Version.Major, lk.Via, lk.Index)
	if w, ok := work(p, lk.OID); ok && w.Updated+w.Deleted > 0 {
		s += fmt.Sprintf(" (%s index scans, %s rows read by sequential scans in %s)",
			units.FormatCount(float64(w.IdxScans)), units.FormatCount(float64(w.SeqRead)), units.FormatSeconds(w.Seconds))
	}
	return s
}
