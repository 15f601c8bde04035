package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/pgversion"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/units"
)

// SetupRead is the pair's setup as the caller read it: the snapshots
// 'lagscope check' reads and the checks' results over them, or why they
// are missing, and the servers' versions the samples recorded.
type SetupRead struct {
	// Snaps are the setup's snapshots (nil: not read) and Results the
	// checks run over them.
	Snaps   *audit.Snapshots
	Results []audit.Result
	// NotRead says why the setup was not read ("": not in the samples).
	NotRead string
	// PubMajor and SubMajor are the servers' major versions as the
	// samples recorded them (0 unknown): what rules remedies out when the
	// setup was not read.
	PubMajor, SubMajor int
}

// PathFacts are the figures of one path that the setup's decisions and
// the what-if planner read beside its verdict.
type PathFacts struct {
	Slot, Subscription string
	// Verdict is the path's verdict from Judge (its name, limit and
	// stages).
	Verdict Verdict
	// Summary is the path's window as measure summarised it.
	Summary measure.Summary
	// SubWALPerSent is the WAL the subscriber wrote per byte sent (0
	// unknown); ApplyWALBytes the WAL its apply workers wrote (0 not
	// read); Tables what it did per table of the subscription (nil not
	// read).
	SubWALPerSent float64
	ApplyWALBytes int64
	Tables        []measure.TableWork
	// PubCPUs and SubCPUs are the servers' hosts' CPUs (0 when /proc was
	// not read there).
	PubCPUs, SubCPUs int
	// ApplyCPUs are the CPUs the subscriber's apply worker may run on
	// (zero: not read).
	ApplyCPUs ApplyCPUs
	// Calibration is the lab profile the predictions rest on (the zero
	// value: DefaultCalibration).
	Calibration Calibration
}

// SetupSays is what the pair's setup says about one path's verdict.
type SetupSays struct {
	// Setup is what Explain combines with the verdict's own cause and
	// advice (nil: nothing).
	Setup *Setup
	// Findings are the findings of the checks that bear on the verdict,
	// for the path's subscription and tables, with their docs pages.
	Findings []string
	// Caveat says the setup was not read and the advice is generic (""
	// when it was read).
	Caveat string
}

// causeFrom are the checks whose findings, when present, are named as the
// cause, in this order.
var causeFrom = []string{checkReplicaTriggers, checkApplyRowCosts, checkFullIdentityNoIndex, checkColumnMismatch, checkIdentityMismatch, checkSubscriptionStopped, checkApplyErrors, checkRowFilter, checkExtraSubscriberIndex, checkReplicaIdentityFull}

// FromSetup is what the setup says about p's verdict: the findings of the
// checks that bear on it (its Spec.Checks, scoped to its subscription and
// tables) named as the cause, their fixes, the generic remedies the setup
// rules out (already set, not in these versions, not the cause) and the
// "does not help" lines it rules out (moot). Without a setup it says so in
// a caveat, and rules out what the recorded versions alone rule out.
func FromSetup(p PathFacts, r SetupRead) SetupSays {
	if r.Snaps == nil {
		why := r.NotRead
		if why == "" {
			why = "not in these samples (saved by an older lagscope)"
		}
		out := SetupSays{Caveat: "the pair's setup (subscription options, replica identities, indexes, triggers) was not read: " + why + "; the advice is generic: run 'lagscope check' for what applies to these servers"}
		if ko := versionRuledOut(r.PubMajor, r.SubMajor); len(ko) > 0 {
			out.Setup = &Setup{RuledOut: ko}
		}
		return out
	}
	s := scope(p, r.Results, r.Snaps, SpecOf(p.Verdict.Name).Checks)
	var out SetupSays
	for _, f := range s.findings {
		out.Findings = append(out.Findings, fmt.Sprintf("%s: %s (docs/checks/%s.md)", f.Check, f.Found, f.Check))
	}
	setup := &Setup{}
	for _, id := range causeFrom {
		for _, f := range s.findings {
			if f.Check == id {
				setup.Causes = append(setup.Causes, strings.TrimSuffix(f.Found, ".")+causeMeasured(id, f, p, r.Snaps))
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
	printed := map[string]bool{}
	for _, f := range ordered {
		// A statement two checks propose (DROP INDEX CONCURRENTLY of an
		// unused GIN index) is printed once, under the first.
		var run []quote.Statement
		for _, st := range f.Run {
			if st.Text == "" || !printed[st.Text] {
				run = append(run, st)
				printed[st.Text] = true
			}
		}
		setup.Fixes = append(setup.Fixes, Advice{Key: RemedyID(f.Check), Text: f.Fix + " (docs/checks/" + f.Check + ".md)", Run: run})
	}
	if p.Subscription != "" {
		if ev := rowCostEvidence(p, rowCostsOf(r.Snaps, p.Subscription)); ev.Key != "" {
			setup.Evidence = append(setup.Evidence, ev)
		}
	}
	setup.RuledOut, setup.Moot = keysWhere(ruledOut, s), keysWhere(moot, s)
	if s.sub != nil {
		setup.Subscription = s.sub.Name
	}
	out.Setup = setup
	return out
}

// causeMeasured is what the window measured of a finding named as the
// cause, appended to it ("" nothing).
func causeMeasured(check string, f audit.Finding, p PathFacts, snaps *audit.Snapshots) string {
	switch check {
	case checkReplicaTriggers:
		return applyDid(p.Verdict.Stages)
	case checkFullIdentityNoIndex:
		return scanned(p, snaps, strings.TrimPrefix(f.Objects[0], "table "))
	case checkReplicaIdentityFull:
		return foundBy(p, snaps, strings.TrimPrefix(f.Objects[0], "table "))
	case checkExtraSubscriberIndex:
		c := ""
		if p.SubWALPerSent > 0 {
			c += fmt.Sprintf("; the subscriber wrote %.1fx the WAL it was sent during the window (each index adds its own writes)", p.SubWALPerSent)
		}
		if p.ApplyWALBytes > 0 {
			c += fmt.Sprintf("; its apply workers wrote %s of WAL in the window (pg_stat_get_backend_wal)", units.FormatBytes(float64(p.ApplyWALBytes)))
		}
		return c
	}
	return ""
}

// ruledOut says, per remedy, when the setup rules it out once it is known
// (already set, not in this version, not there), or a finding names it for
// these objects with its statement (which comes first instead). A remedy
// not listed is never ruled out.
var ruledOut = map[RemedyID]func(s pathSetup) bool{
	KeyBinary: func(pathSetup) bool { return true }, // on already, or the binary-transfer finding says how
	KeyStreamingParallel: func(s pathSetup) bool {
		// Not in this version, set already, or no transaction large enough
		// to spill on this slot (decoding-spill): nothing to stream.
		return !s.has(pgversion.ParallelApply) || s.sub != nil && s.sub.Streaming == "parallel" || !s.spills
	},
	KeyStreamingOn: func(s pathSetup) bool {
		// Not in this version, parallel advised instead, streaming set
		// already, or nothing to stream.
		return !s.has(pgversion.Streaming) || s.has(pgversion.ParallelApply) || s.sub != nil && (s.sub.Streaming == "on" || s.sub.Streaming == "parallel") || !s.spills
	},
	KeyFewerIndexes:     func(pathSetup) bool { return true }, // none extra, or DROP INDEX named
	KeyNarrowerIdentity: func(pathSetup) bool { return true }, // no FULL, or its fix named
	// The publisher's side of the setup: without it, nothing is ruled out.
	KeyRowFilters:      func(s pathSetup) bool { return s.pubRead }, // none, or ALTER PUBLICATION named
	KeyDecodingWorkMem: func(s pathSetup) bool { return s.pubRead && !s.spills },
	KeyStreaming: func(s pathSetup) bool {
		return s.pubRead && !s.spills || s.sub != nil && s.sub.Streaming != "off" && s.sub.Streaming != ""
	},
	KeyFewerSlots: func(s pathSetup) bool { return s.pubRead && s.logicalSlots <= 1 },
	// One table cannot be split over subscriptions.
	KeySplitSubscriptions: func(s pathSetup) bool { return s.sub != nil && len(s.sub.Relations) <= 1 },
}

// versionFeatures are the remedies that need a feature of both servers'
// versions: the versions alone rule them out.
var versionFeatures = []struct {
	key     RemedyID
	feature pgversion.Feature
}{
	{KeyStreamingParallel, pgversion.ParallelApply},
	{KeyStreamingOn, pgversion.Streaming},
}

// versionRuledOut are the remedies the servers' versions alone rule out
// (majors pub and sub, 0 unknown), read from the samples (which record
// them) when the setup was not read. A 15 pair was advised "streaming =
// parallel (16+)" from samples without a setup.
func versionRuledOut(pub, sub int) []RemedyID {
	var out []RemedyID
	for _, v := range versionFeatures {
		if !v.feature.OnBoth(pub, sub) {
			out = append(out, v.key)
		}
	}
	return out
}

// moot says, per "does not help" line, when the setup rules it out by key,
// as ruledOut does the remedies: the remedy it warns against is not there
// to try. None does yet; a line not listed is never ruled out.
var moot = map[RemedyID]func(s pathSetup) bool{}

// keysWhere lists, sorted, the keys whose rule holds for s.
func keysWhere(rules map[RemedyID]func(pathSetup) bool, s pathSetup) []RemedyID {
	var out []RemedyID
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

// has says the pair has feature f, as far as the setup knows (a side not
// read does not rule a version out).
func (s pathSetup) has(f pgversion.Feature) bool { return f.OnBoth(s.pubMajor, s.subMajor) }

// scope picks the findings of the checks listed (those that bear on p's
// verdict, for its cause and advice) that concern its subscription or that
// subscription's tables.
func scope(p PathFacts, results []audit.Result, snaps *audit.Snapshots, checks []string) pathSetup {
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
			s.spills = s.spills || r.Check == checkDecodingSpill && slices.Contains(f.Objects, "slot "+p.Slot)
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

// applyDid says what the apply worker measurably did in the window, for a
// cause that runs inside it (a trigger): it slept or waited (its top own
// waits), or it ran on a CPU; "" when neither stands out.
func applyDid(stages []Stage) string {
	for _, st := range stages {
		if st.Name != StageApply && st.Name != StageParallel || st.Role != "limit" {
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

// lookupOf is how p's apply worker finds rows of the table named name: as
// subscribed (asSubscribed, the publisher's name) or as a local leaf.
func lookupOf(p PathFacts, snaps *audit.Snapshots, name string, asSubscribed bool) (audit.TableLookup, bool) {
	for _, lk := range audit.ApplyLookups(*snaps, p.Subscription) {
		if asSubscribed && lk.Subscribed == name || !asSubscribed && lk.Table == name {
			return lk, true
		}
	}
	return audit.TableLookup{}, false
}

// work is the window's counters of the local table oid ("false" when they
// were not read).
func work(p PathFacts, oid uint32) (measure.TableWork, bool) {
	for _, w := range p.Tables {
		if w.RelID == int64(oid) {
			return w, true
		}
	}
	return measure.TableWork{}, false
}

// scanned says what the sequential scans of a FULL table without a usable
// index read in the window; "" when its counters were not read.
func scanned(p PathFacts, snaps *audit.Snapshots, table string) string {
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
func foundBy(p PathFacts, snaps *audit.Snapshots, table string) string {
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
