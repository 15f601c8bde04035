package diagnose

import (
	"fmt"
	"io"
	"sort"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// FromSamples re-classifies a saved recording without any server: the same
// recording always gives the same report. slot or subscription ("" = all)
// restrict it to one path, as --slot and --subscription do live; noProc
// drops the recording's /proc figures first, as if it had been made with
// --no-proc; link are the link's rates for the what-if of a faster link.
func FromSamples(r io.Reader, slot, subscription string, noProc bool, link model.LinkRates) (report.Report, error) {
	if err := ValidateLink(link); err != nil {
		return report.Report{}, err
	}
	rec, err := sample.ReadRecording(r)
	if err != nil {
		return report.Report{}, err
	}
	if noProc {
		rec = rec.WithoutProc()
	}
	if IsPhysical(rec) {
		if slot != "" || subscription != "" {
			return report.Report{}, fmt.Errorf("--slot and --subscription select a logical path: these samples are a physical standby's")
		}
		return BuildPhysical(rec, rec.ProbeHz()), nil
	}
	slots, err := recordedSlots(rec, slot, subscription)
	if err != nil {
		return report.Report{}, err
	}
	return BuildWith(rec, slots, rec.ProbeHz(), link), nil
}

// recordedSlots resolves --slot / --subscription against the slots and
// subscriptions a recording holds.
func recordedSlots(rec *sample.Recording, slot, subscription string) ([]string, error) {
	have := map[string]bool{}
	subSlot := map[string]string{}
	for _, t := range rec.Ticks {
		for _, s := range t.Read(sample.PublisherNode).Slots {
			have[s.Name] = true
		}
		for _, s := range t.Read(sample.SubscriberNode).Subs {
			subSlot[s.Name] = s.Slot
		}
	}
	if subscription != "" {
		s, ok := subSlot[subscription]
		if !ok {
			return nil, fmt.Errorf("the samples hold no subscription %q (they hold: %v)", subscription, keys(subSlot))
		}
		slot = s
	}
	if slot == "" {
		if len(have) == 0 {
			return nil, fmt.Errorf("%w: the samples hold no logical slot", ErrNothingToDiagnose)
		}
		return nil, nil
	}
	if !have[slot] {
		return nil, fmt.Errorf("%w: the samples hold no slot %q (they hold: %v)", ErrNothingToDiagnose, slot, keys(have))
	}
	return []string{slot}, nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
