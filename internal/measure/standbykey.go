package measure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lagscope/lagscope/internal/sample"
)

// StandbyKey picks one physical walsender in a primary's reads, tick after
// tick. Standbys that share an application_name (a primary_conninfo
// without one says "walreceiver") are told apart by their slots, and
// slot-less ones seen at the same time by their pids. The zero key picks
// the observed standby's walsender (the one on its slot, or the only
// physical one).
type StandbyKey struct {
	AppName string
	// Shared says other physical walsenders carry AppName too: Slot, or
	// else PID, or else having no slot, picks this one.
	Shared bool
	Slot   string
	PID    int
}

// Label names the path in reports and metrics: its application_name, with
// its slot or pid where the name is shared.
func (k StandbyKey) Label() string {
	switch {
	case !k.Shared:
		return k.AppName
	case k.Slot != "":
		return fmt.Sprintf("%s (slot %s)", k.AppName, k.Slot)
	case k.PID != 0:
		return fmt.Sprintf("%s (pid %d)", k.AppName, k.PID)
	}
	return k.AppName + " (no slot)"
}

// matches says whether s is the key's walsender.
func (k StandbyKey) matches(s sample.Sender) bool {
	switch {
	case !s.Physical || s.AppName != k.AppName:
		return false
	case !k.Shared:
		return true
	case k.Slot != "":
		return s.Slot == k.Slot
	case k.PID != 0:
		return s.PID == k.PID
	}
	return s.Slot == ""
}

// StandbyKeys lists a key per physical path the primary's reads show, in
// the order of their labels. A name carried by one walsender at a time
// (its reconnects change its pid, not its standby) is one path; a shared
// one is a path per slot, plus the slot-less walsenders: one path when no
// two of them were seen at the same tick, else one per pid.
func StandbyKeys(rec *sample.Recording) []StandbyKey {
	type group struct {
		slots      []string
		pids       []int
		concurrent bool
	}
	groups := map[string]*group{}
	var names []string
	for _, t := range rec.Ticks {
		slotless := map[string]int{}
		for _, s := range t.Read(sample.PrimaryNode).Senders {
			if !s.Physical {
				continue
			}
			g := groups[s.AppName]
			if g == nil {
				g = &group{}
				groups[s.AppName] = g
				names = append(names, s.AppName)
			}
			if s.Slot != "" {
				if !slices.Contains(g.slots, s.Slot) {
					g.slots = append(g.slots, s.Slot)
				}
				continue
			}
			if !slices.Contains(g.pids, s.PID) {
				g.pids = append(g.pids, s.PID)
			}
			if slotless[s.AppName]++; slotless[s.AppName] > 1 {
				g.concurrent = true
			}
		}
	}
	var out []StandbyKey
	for _, n := range names {
		g := groups[n]
		paths := len(g.slots)
		if len(g.pids) > 0 {
			paths++
		}
		if paths == 1 && !g.concurrent {
			out = append(out, StandbyKey{AppName: n})
			continue
		}
		for _, s := range g.slots {
			out = append(out, StandbyKey{AppName: n, Shared: true, Slot: s})
		}
		switch {
		case g.concurrent:
			for _, pid := range g.pids {
				out = append(out, StandbyKey{AppName: n, Shared: true, PID: pid})
			}
		case len(g.pids) > 0:
			out = append(out, StandbyKey{AppName: n, Shared: true})
		}
	}
	slices.SortFunc(out, func(a, b StandbyKey) int { return strings.Compare(a.Label(), b.Label()) })
	return out
}
