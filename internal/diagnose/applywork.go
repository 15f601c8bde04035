package diagnose

import (
	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
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
		for _, s := range tk.Read(sample.SubscriberNode).Subs {
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
