package model

import (
	"fmt"
	"slices"

	"github.com/lagscope/lagscope/internal/units"
)

// maxSplit is the most subscriptions a split is predicted for when the
// subscriber's CPUs are not known.
const maxSplit = 4

// splitRemedy spreads the path's tables over N subscriptions, each with an
// apply worker of its own. N is the tables that changed in the window, at
// most the CPUs the subscriber's apply workers may run on (ApplyCPUs; the
// host's when not read): N apply workers on fewer cores share them.
// The apply stage carries the changes of its busiest subscription: the
// tables are grouped by the rows they changed (largest first, each into
// the least loaded group), and the factor is all the changes over the
// largest group's. Every subscription's walsender decodes all the WAL, so
// the walsender's capacity does not grow, and N walsenders on fewer
// publisher CPUs share them.
var splitRemedy = Remedy{Change: KeySplit, Remedy: "the tables split over N subscriptions", Stage: StageApply,
	factor: func(p Path, st Stage) factorOf { return figure(splitEstimate(p, st)) },
	others: func(p Path) map[StageName]float64 {
		if n := splitN(p); p.PubCPUs > 0 && n > p.PubCPUs {
			return map[StageName]float64{StageWalsender: float64(p.PubCPUs) / float64(n)}
		}
		return nil
	},
	label: func(p Path) (string, string) {
		n := splitN(p)
		if n < 2 {
			return string(KeySplit), "the tables split over several subscriptions"
		}
		return fmt.Sprintf("split=%d", n), fmt.Sprintf("the tables split over %d subscriptions", n)
	},
}

// splitEstimate is the split's factor on the apply stage and its model
// (Remedy.factor, as figure takes them).
func splitEstimate(p Path, _ Stage) (float64, string, bool) {
	if p.Limit != StageApply || p.Setup == nil || len(p.Setup.TableChanges) < 2 {
		return 0, "", false
	}
	n := splitN(p)
	if n < 2 {
		if narrowed(p) {
			return 0, fmt.Sprintf("%s: a second apply worker would share it (apply workers inherit the server's CPUs)", p.ApplyCPUs.on(p.SubCPUs)), true
		}
		return 0, "the subscriber has 1 CPU: a second apply worker would share it", true
	}
	if th := p.Apply.Throttle; th.Share >= QuotaThrottled {
		return 0, fmt.Sprintf("the subscriber's CPU limit (cgroup %s) held the apply worker back in %s of its periods: more apply workers would share the same limit", th.Cgroup, units.Percent(th.Share)), true
	}
	f := splitFactor(p.Setup.TableChanges, n)
	model := fmt.Sprintf("%d apply workers on %d cores, the tables grouped by the rows each changed in the window: the busiest subscription gets %.0f%% of them", n, n, 100/f)
	switch {
	case p.SubCPUs == 0 && p.ApplyCPUs.N == 0:
		model += fmt.Sprintf(" (the subscriber's CPUs are not known: this assumes %d free)", n)
	case narrowed(p):
		model += fmt.Sprintf(" (%s)", p.ApplyCPUs.on(p.SubCPUs))
	case p.ApplyCPUs.N == 0:
		model += fmt.Sprintf(" (the CPUs the apply worker may run on were not read: this assumes the host's %d)", p.SubCPUs)
	}
	model += "; each subscription's walsender decodes all the WAL"
	if p.PubCPUs > 0 && n > p.PubCPUs {
		model += fmt.Sprintf(", %d of them on the publisher's %d CPUs", n, p.PubCPUs)
	}
	return f, model + "; a transaction that spans two subscriptions is no longer applied atomically", true
}

// splitN is how many subscriptions the tables are split into: one a table
// that changed, at most the CPUs the subscriber's apply workers may run on
// (the host's when those were not read, maxSplit when neither was).
func splitN(p Path) int {
	n := 0
	if p.Setup != nil {
		n = len(p.Setup.TableChanges)
	}
	if c := subCPUs(p); c > 0 {
		return min(n, c)
	}
	return min(n, maxSplit)
}

// ApplyCPUs are the CPUs the subscriber's leader apply worker may run on:
// N of them (its affinity, its cgroup's cpuset and CPU quota rounded down,
// sample.Recording.ApplyCPUs), narrowed By "affinity", "cpuset" or
// "cpu.max". Every apply worker is forked by the same server, so they share
// them. The zero value: not read.
type ApplyCPUs struct {
	N  int
	By string
}

// on says how many of the host's cpus (0 unknown) the apply worker may
// run on, and what narrows them.
func (a ApplyCPUs) on(host int) string {
	by := map[string]string{"affinity": "its CPU affinity", "cpuset": "its cgroup's cpuset", "cpu.max": "its cgroup's CPU limit, cpu.max, in whole CPUs"}[a.By]
	if by == "" {
		by = "its affinity, cpuset and CPU limit"
	}
	if host > 0 {
		return fmt.Sprintf("the apply worker may run on %d of the host's %d CPUs (%s)", a.N, host, by)
	}
	return fmt.Sprintf("the apply worker may run on %d CPU(s) (%s)", a.N, by)
}

// subCPUs is the CPUs the subscriber's apply workers may run on: those
// read for the apply worker, at most the host's; the host's when those
// were not read (0: neither).
func subCPUs(p Path) int {
	switch {
	case p.ApplyCPUs.N > 0 && p.SubCPUs > 0:
		return min(p.ApplyCPUs.N, p.SubCPUs)
	case p.ApplyCPUs.N > 0:
		return p.ApplyCPUs.N
	}
	return p.SubCPUs
}

// narrowed says the apply worker may run on fewer CPUs than the host has
// (or on a known number of an unknown host's).
func narrowed(p Path) bool {
	return p.ApplyCPUs.N > 0 && (p.SubCPUs == 0 || p.ApplyCPUs.N < p.SubCPUs)
}

// splitFactor groups the tables' changes into n groups, largest first,
// each into the group with the fewest so far, and returns all the changes
// over the largest group's.
func splitFactor(changes []int64, n int) float64 {
	c := slices.Clone(changes)
	slices.Sort(c)
	slices.Reverse(c)
	groups := make([]int64, n)
	var total int64
	for _, x := range c {
		groups[slices.Index(groups, slices.Min(groups))] += x
		total += x
	}
	return float64(total) / float64(slices.Max(groups))
}
