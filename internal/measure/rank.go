package measure

import "sort"

// EventShare is one wait event with its share of a process's probes.
type EventShare struct {
	Event string
	Share float64
}

// Ranked orders wait-event shares, largest first (ties by name): the one
// ranking every top-events line and chart uses.
func Ranked(shares map[string]float64) []EventShare {
	out := make([]EventShare, 0, len(shares))
	for ev, v := range shares {
		out = append(out, EventShare{ev, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Share != out[j].Share {
			return out[i].Share > out[j].Share
		}
		return out[i].Event < out[j].Event
	})
	return out
}
