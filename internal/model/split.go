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
// most the subscriber's CPUs: N apply workers on fewer cores share them.
// The apply stage carries the changes of its busiest subscription: the
// tables are grouped by the rows they changed (largest first, each into
// the least loaded group), and the factor is all the changes over the
// largest group's. Every subscription's walsender decodes all the WAL, so
// the walsender's capacity does not grow, and N walsenders on fewer
// publisher CPUs share them.
var splitRemedy = Remedy{Change: "split=N", Remedy: "the tables split over N subscriptions", Stage: StageApply,
	factor: func(p Path, _ Stage) (float64, string, bool) {
		if p.Limit != StageApply || p.Setup == nil || len(p.Setup.TableChanges) < 2 {
			return 0, "", false
		}
		n := splitN(p)
		if n < 2 {
			return 0, "the subscriber has 1 CPU: a second apply worker would share it", true
		}
		if th := p.Apply.Throttle; th.Share >= QuotaThrottled {
			return 0, fmt.Sprintf("the subscriber's CPU limit (cgroup %s) held the apply worker back in %s of its periods: more apply workers would share the same limit", th.Cgroup, units.Percent(th.Share)), true
		}
		f := splitFactor(p.Setup.TableChanges, n)
		model := fmt.Sprintf("%d apply workers on %d cores, the tables grouped by the rows each changed in the window: the busiest subscription gets %.0f%% of them", n, n, 100/f)
		if p.SubCPUs == 0 {
			model += fmt.Sprintf(" (the subscriber's CPUs are not known: this assumes %d free)", n)
		}
		model += "; each subscription's walsender decodes all the WAL"
		if p.PubCPUs > 0 && n > p.PubCPUs {
			model += fmt.Sprintf(", %d of them on the publisher's %d CPUs", n, p.PubCPUs)
		}
		return f, model + "; a transaction that spans two subscriptions is no longer applied atomically", true
	},
	others: func(p Path) map[StageName]float64 {
		if n := splitN(p); p.PubCPUs > 0 && n > p.PubCPUs {
			return map[StageName]float64{StageWalsender: float64(p.PubCPUs) / float64(n)}
		}
		return nil
	},
	label: func(p Path) (string, string) {
		n := splitN(p)
		if n < 2 {
			return "split=N", "the tables split over several subscriptions"
		}
		return fmt.Sprintf("split=%d", n), fmt.Sprintf("the tables split over %d subscriptions", n)
	},
}

// splitN is how many subscriptions the tables are split into: one a table
// that changed, at most the subscriber's CPUs (maxSplit when not known).
func splitN(p Path) int {
	n := 0
	if p.Setup != nil {
		n = len(p.Setup.TableChanges)
	}
	if p.SubCPUs > 0 {
		return min(n, p.SubCPUs)
	}
	return min(n, maxSplit)
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
