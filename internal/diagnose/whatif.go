package diagnose

import (
	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// remedyChecks are the checks whose findings make a remedy apply.
var remedyChecks = []string{"extra-subscriber-indexes", "replica-triggers", "full-identity-no-index", "binary-transfer", "streaming-off"}

// whatIf predicts what each remedy that applies to p would buy, from the
// window's stages and rates, when it was read the pair's setup, and the
// link's rates when the operator gave them.
func whatIf(p *report.Path, s measure.Summary, rec *sample.Recording, results []audit.Result, snaps *audit.Snapshots, link model.LinkRates) []model.Prediction {
	in := model.Path{Verdict: p.Name, Limit: p.Limit, Stages: p.Stages, Drain: s.Progress(), Generated: s.Generated,
		Backlog: s.Lag.Total, Walsender: s.Walsender, Apply: s.Apply, PubCPUs: rec.Publisher.CPUs, Link: link, SubWALPerSent: p.SubWALPerSent}
	if rec.Subscriber != nil {
		in.SubCPUs = rec.Subscriber.CPUs
	}
	if snaps != nil && p.Subscription != "" {
		// Whatever the verdict: a starved apply worker's extra indexes
		// are a remedy too, once it has a CPU.
		ps := scope(p, results, snaps, remedyChecks)
		in.Setup = &model.RemedySetup{ExtraIndexes: ps.found["extra-subscriber-indexes"], Trigger: ps.found["replica-triggers"],
			FullNoIndex: ps.found["full-identity-no-index"], TextTransfer: ps.found["binary-transfer"],
			StreamingOff: ps.found["streaming-off"],
			Parallel:     snaps.Subscriber != nil && snaps.Subscriber.Version.Major >= 16 && (snaps.Publisher == nil || snaps.Publisher.Version.Major >= 16)}
		// The rows the subscriber's sequential scans read per row changed,
		// over the path's tables (each FULL update without an index scans).
		var read, changed int64
		for _, w := range p.Tables {
			read, changed = read+w.SeqRead, changed+w.Updated+w.Deleted
			if c := w.Changed(); c > 0 {
				in.Setup.TableChanges = append(in.Setup.TableChanges, c)
			}
		}
		if changed > 0 {
			in.Setup.RowsReadPerChange = float64(read) / float64(changed)
		}
	}
	return model.Plan(in)
}
