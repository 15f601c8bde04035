package diagnose

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
)

// ReadSetup reads the pair's setup as 'lagscope check' does (versions,
// subscription options, replica identities, indexes, triggers, ...), once
// (diagnose: after its window; watch and the exporter: at each
// preflight), within a bound of its own: the raw snapshots, or why
// they could not be read (a failed read is "not read", never "none").
//
// The read uses the sessions kept in ss (nil: it connects), and keeps them
// open: a session whose read failed is closed.
func ReadSetup(ctx context.Context, o Options, ss *Sessions) (json.RawMessage, string) {
	ctx, cancel := pg.WithAnswerTimeout(ctx, 4*pg.ReadTimeout)
	defer cancel()
	ao := audit.Options{Publisher: o.Publisher, Subscriber: o.Subscriber}
	if ss != nil {
		ao.Session = ss.peek
	}
	snaps, err := audit.Collect(ctx, ao)
	if err != nil {
		return nil, pg.Redact(pg.Unanswered(ctx, err).Error())
	}
	b, err := json.Marshal(snaps)
	if err != nil {
		return nil, err.Error()
	}
	return b, ""
}

// causeFrom are the checks whose findings, when present, are named as the
// cause, in this order.
var causeFrom = []string{"replica-triggers", "full-identity-no-index", "column-mismatch", "replica-identity-mismatch", "subscription-stopped", "apply-errors", "row-filter", "extra-subscriber-indexes", "replica-identity-full"}

// ruledOut says, per remedy, when the setup rules it out once it is known
// (already set, not in this version, not there), or a finding names it for
// these objects with its statement (which comes first instead). A remedy
// not listed is never ruled out.
var ruledOut = map[model.AdviceKey]func(s pathSetup) bool{
	model.KeyBinary: func(pathSetup) bool { return true }, // on already, or the binary-transfer finding says how
	model.KeyStreamingParallel: func(s pathSetup) bool {
		// Not in this version, set already, or no transaction large enough
		// to spill on this slot (decoding-spill): nothing to stream.
		// Parallel apply needs the publisher's protocol version 4 as well:
		// both sides 16+.
		return noParallelApply(s) || s.sub != nil && s.sub.Streaming == "parallel" || !s.spills
	},
	model.KeyStreamingOn: func(s pathSetup) bool {
		// Not in this version (14+), parallel advised instead (both sides
		// 16+), streaming set already, or nothing to stream.
		return noStreaming(s) || s.atLeast(16) || s.sub != nil && (s.sub.Streaming == "on" || s.sub.Streaming == "parallel") || !s.spills
	},
	model.KeyFewerIndexes:     func(pathSetup) bool { return true }, // none extra, or DROP INDEX named
	model.KeyNarrowerIdentity: func(pathSetup) bool { return true }, // no FULL, or its fix named
	// The publisher's side of the setup: without it, nothing is ruled out.
	model.KeyRowFilters:      func(s pathSetup) bool { return s.pubRead }, // none, or ALTER PUBLICATION named
	model.KeyDecodingWorkMem: func(s pathSetup) bool { return s.pubRead && !s.spills },
	model.KeyStreaming: func(s pathSetup) bool {
		return s.pubRead && !s.spills || s.sub != nil && s.sub.Streaming != "off" && s.sub.Streaming != ""
	},
	model.KeyFewerSlots: func(s pathSetup) bool { return s.pubRead && s.logicalSlots <= 1 },
	// One table cannot be split over subscriptions.
	model.KeySplitSubscriptions: func(s pathSetup) bool { return s.sub != nil && len(s.sub.Relations) <= 1 },
}

// atLeast says both sides run major version major or later, as far as the
// setup knows (a side not read does not rule a version out).
func (s pathSetup) atLeast(major int) bool {
	return (s.subMajor == 0 || s.subMajor >= major) && (s.pubMajor == 0 || s.pubMajor >= major)
}

// versionRuledOut are the remedies the servers' versions alone rule out,
// read from the samples (which record them) when the setup was not read:
// streaming = parallel below 16 on either side, streaming = on below 14. A
// 15 pair was advised "streaming = parallel (16+)" from samples without a
// setup.
func versionRuledOut(rec *sample.Recording) []model.AdviceKey {
	s := pathSetup{pubMajor: rec.Publisher.Major}
	if rec.Subscriber != nil {
		s.subMajor = rec.Subscriber.Major
	}
	var out []model.AdviceKey
	if noParallelApply(s) {
		out = append(out, model.KeyStreamingParallel)
	}
	if noStreaming(s) {
		out = append(out, model.KeyStreamingOn)
	}
	return out
}

// noParallelApply says a side runs a version without streaming = parallel
// (before 16; parallel apply needs the publisher's protocol version 4 too).
func noParallelApply(s pathSetup) bool { return !s.atLeast(16) }

// noStreaming says a side runs a version without streaming = on (before 14).
func noStreaming(s pathSetup) bool { return !s.atLeast(14) }

// moot says, per "does not help" line, when the setup rules it out by key,
// as ruledOut does the remedies: the remedy it warns against is not there
// to try. None does yet; a line not listed is never ruled out.
var moot = map[model.AdviceKey]func(s pathSetup) bool{}

// keysWhere lists, sorted, the keys whose rule holds for s.
func keysWhere(rules map[model.AdviceKey]func(pathSetup) bool, s pathSetup) []model.AdviceKey {
	var out []model.AdviceKey
	for key, holds := range rules {
		if holds(s) {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// pathSetup is what the setup says about one path.
type pathSetup struct {
	sub      *audit.Subscription
	subMajor int
	pubMajor int
	found    map[string]bool // check ID -> it has findings for this path
	spills   bool            // the slot spilled large transactions to disk
	// pubRead says the publisher's setup was read; logicalSlots counts its
	// logical slots in the path's database (each decodes all the WAL).
	pubRead      bool
	logicalSlots int
	findings     []audit.Finding
}

// withSetup lists on p the findings of the checks that bear on its verdict
// (scoped to its subscription and tables), with their docs pages, and
// returns what they say about its cause and advice (model.Explain
// combines it with the verdict's): the findings named as the cause, their
// fixes, the generic remedies the setup rules out (already set, not in
// this version, not the cause) and the "does not help" lines it rules out
// (moot). Without a setup it says so in a caveat and
// returns nil.
func withSetup(p *report.Path, rec *sample.Recording, results []audit.Result, snaps *audit.Snapshots) *model.Setup {
	if snaps == nil {
		why := rec.SetupError
		if why == "" {
			why = "not in these samples (saved by an older lagscope)"
		}
		p.Caveats = append(p.Caveats, "the pair's setup (subscription options, replica identities, indexes, triggers) was not read: "+why+"; the advice is generic: run 'lagscope check' for what applies to these servers")
		if ko := versionRuledOut(rec); len(ko) > 0 {
			return &model.Setup{RuledOut: ko}
		}
		return nil
	}
	s := scope(p, results, snaps, model.SpecOf(p.Name).Checks)
	for _, f := range s.findings {
		p.Setup = append(p.Setup, fmt.Sprintf("%s: %s (docs/checks/%s.md)", f.Check, f.Found, f.Check))
	}
	out := &model.Setup{}
	for _, id := range causeFrom {
		for _, f := range s.findings {
			if f.Check == id {
				c := strings.TrimSuffix(f.Found, ".")
				switch id {
				case "replica-triggers":
					c += applyDid(p)
				case "full-identity-no-index":
					c += scanned(p, snaps, strings.TrimPrefix(f.Objects[0], "table "))
				case "replica-identity-full":
					c += foundBy(p, snaps, strings.TrimPrefix(f.Objects[0], "table "))
				case "extra-subscriber-indexes":
					if p.SubWALPerSent > 0 {
						c += fmt.Sprintf("; the subscriber wrote %.1fx the WAL it was sent during the window (each index adds its own writes)", p.SubWALPerSent)
					}
					if p.ApplyWALBytes > 0 {
						c += fmt.Sprintf("; its apply workers wrote %s of WAL in the window (pg_stat_get_backend_wal)", units.FormatBytes(float64(p.ApplyWALBytes)))
					}
				}
				out.Causes = append(out.Causes, c)
			}
		}
	}
	// The remedies of the findings named as the cause come first, in
	// causeFrom's order (a missing column before the stop it causes).
	rank := func(id string) int {
		if i := slices.Index(causeFrom, id); i >= 0 {
			return i
		}
		return len(causeFrom)
	}
	ordered := slices.Clone(s.findings)
	slices.SortStableFunc(ordered, func(a, b audit.Finding) int { return rank(a.Check) - rank(b.Check) })
	for _, f := range ordered {
		out.Fixes = append(out.Fixes, model.Advice{Key: model.AdviceKey(f.Check), Text: f.Fix + " (docs/checks/" + f.Check + ".md)", Run: f.Run})
	}
	out.RuledOut, out.Moot = keysWhere(ruledOut, s), keysWhere(moot, s)
	if s.sub != nil {
		out.Subscription = s.sub.Name
	}
	return out
}

// scope picks the findings of the checks listed (those that bear on p's
// verdict, for its cause and advice) that concern its subscription or that
// subscription's tables.
func scope(p *report.Path, results []audit.Result, snaps *audit.Snapshots, checks []string) pathSetup {
	s := pathSetup{found: map[string]bool{}}
	var tables []string
	if sub := snaps.Subscriber; sub != nil {
		s.subMajor = sub.Version.Major
		for i := range sub.Subscriptions {
			if sub.Subscriptions[i].Name == p.Subscription {
				s.sub = &sub.Subscriptions[i]
				for _, r := range s.sub.Relations {
					tables = append(tables, "table "+r.Table)
				}
			}
		}
	}
	if pub := snaps.Publisher; pub != nil {
		s.pubRead, s.pubMajor = true, pub.Version.Major
		db := ""
		for _, sl := range pub.Slots {
			if sl.Name == p.Slot {
				db = sl.Database
			}
		}
		for _, sl := range pub.Slots {
			if sl.Type == "logical" && (db == "" || sl.Database == db) {
				s.logicalSlots++
			}
		}
	}
	for _, r := range results {
		for _, f := range r.Findings {
			s.spills = s.spills || r.Check == "decoding-spill" && slices.Contains(f.Objects, "slot "+p.Slot)
		}
		if !slices.Contains(checks, r.Check) {
			continue
		}
		for _, f := range r.Findings {
			mine := slices.Contains(f.Objects, "subscription "+p.Subscription) || slices.Contains(f.Objects, "slot "+p.Slot)
			for _, o := range f.Objects {
				mine = mine || slices.Contains(tables, o)
			}
			if mine {
				f.Check = r.Check
				s.findings = append(s.findings, f)
				s.found[r.Check] = true
			}
		}
	}
	return s
}

// setupOf decodes a recording's setup (nil when it has none, or when it
// does not read or holds names no server writes: audit.Snapshots.Validate).
func setupOf(rec *sample.Recording) (*audit.Snapshots, []audit.Result) {
	if len(rec.Setup) == 0 {
		return nil, nil
	}
	var s audit.Snapshots
	if err := json.Unmarshal(rec.Setup, &s); err != nil {
		rec.SetupError = "the saved setup does not read: " + err.Error()
		return nil, nil
	}
	if err := s.Validate(); err != nil {
		// A recording read from a file: names no server could have written.
		rec.SetupError = "the saved setup is refused: " + err.Error()
		return nil, nil
	}
	return &s, audit.Run(s, audit.All)
}

// applyDid says what the apply worker measurably did in the window, for a
// cause that runs inside it (a trigger): it slept or waited (its top own
// waits), or it ran on a CPU; "" when neither stands out.
func applyDid(p *report.Path) string {
	for _, st := range p.Stages {
		if st.Name != model.StageApply && st.Name != model.StageParallel || st.Role != "limit" {
			continue
		}
		switch {
		case st.Own >= 0.5 && st.OwnTop != "":
			return fmt.Sprintf("; the %s waited in it (%s of its probes)", st.Name+" worker", st.OwnTop)
		case st.CPU >= 0.5:
			return fmt.Sprintf("; the %s ran on a CPU %s of the window", st.Name+" worker", units.Percent(st.CPU))
		}
	}
	return ""
}
