package scenario

import (
	"fmt"
	"sort"
	"strings"
)

// All lists every scenario, in the order help shows them. The backlog
// shares of their recipes are sized so that the backlog outlasts the
// window at the scenario's drain speed on a 1-core publisher.
var All = []Scenario{
	applyBound,
	applyText,
	walsenderStarved,
	network,
	subscriberLock,
	rowLock,
	subReadIO,
	subCPUIO,
	syncStandby,
	fullIdentity,
	fullIdentityIndex,
	triggerSleep,
	triggerCPU,
	checkConstraint,
	expressionIndex,
	generatedColumn,
	subscriberStarved,
	osHogPublisher,
	osHogSubscriber,
	cpuQuota,
	walReadIO,
	initialSync,
	parallelApply,
	bigTxn,
	bigTxnDecoding,
	openTxn,
	decodeBound,
	slowConsumer,
	lazyConfirmer,
	standbySlots,
	lostSlot,
	slotFilling,
	slotIdle,
	conflictMissing,
	conflictExists,
	disabledOnError,
	missingColumn,
	stalled,
	caughtUp,
	replayCPU,
	replayReadIO,
	replayConflict,
	replayPaused,
	replayDelayed,
	standbyLink,
	syncStandbyWait,
	cascade,
	standbyDecoding,
	standbyIdle,
	flat,
	hash41,
	hash44,
}

// Lookup finds a scenario by name; busy turns a layout scenario's idle
// measurement into the busy one (load keeps running).
func Lookup(name string, busy bool) (Scenario, error) {
	for _, s := range All {
		if string(s.Name) != name {
			continue
		}
		if busy {
			if !s.Busy {
				return Scenario{}, fmt.Errorf("--busy applies to the layout scenarios %s, not %s", busyNames(), name)
			}
			s = busyLayout(s)
		}
		return s, nil
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q: choose one of %s", name, strings.Join(Names(), ", "))
}

// Names lists the scenario names, sorted.
func Names() []string {
	n := make([]string, len(All))
	for i, s := range All {
		n[i] = string(s.Name)
	}
	sort.Strings(n)
	return n
}

// Cases lists every scenario's cases (its own and its variants'), in the
// registry's order.
func Cases() []Case {
	var cs []Case
	for _, s := range All {
		cs = append(cs, s.Cases()...)
	}
	return cs
}

// busyNames names the scenarios --busy applies to: "a, b and c".
func busyNames() string {
	var n []string
	for _, s := range All {
		if s.Busy {
			n = append(n, string(s.Name))
		}
	}
	if len(n) < 2 {
		return strings.Join(n, "")
	}
	return strings.Join(n[:len(n)-1], ", ") + " and " + n[len(n)-1]
}
