package diagnose

import (
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// FromRecording classifies a window cut out of a continuous recording
// (recorder.Read) as FromSamples classifies a saved one: the same
// classifier, causes (from the setup recorded current then) and what-if.
func FromRecording(rec *sample.Recording, slot, subscription string, noProc bool, link model.LinkRates) (report.Report, error) {
	if err := ValidateLink(link); err != nil {
		return report.Report{}, err
	}
	if err := rec.Validate(); err != nil {
		return report.Report{}, err
	}
	if noProc {
		rec = rec.WithoutProc()
	}
	slots, err := recordedSlots(rec, slot, subscription)
	if err != nil {
		return report.Report{}, err
	}
	return BuildWith(rec, slots, rec.ProbeHz(), link), nil
}
