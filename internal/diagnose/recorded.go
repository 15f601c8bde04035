package diagnose

import (
	"errors"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// FromRecording classifies a window cut out of a continuous recording
// (recorder.Read) as FromSamples classifies a saved one: the same
// classifier, causes (from the setup recorded current then) and what-if.
// A physical standby's recording (IsPhysical) gets BuildPhysical's report.
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
	if IsPhysical(rec) {
		if slot != "" || subscription != "" {
			return report.Report{}, errors.New("--slot and --subscription select a logical path: this recording is a physical standby's (its paths are named by the standby)")
		}
		return BuildPhysical(rec, rec.ProbeHz()), nil
	}
	slots, err := recordedSlots(rec, slot, subscription)
	if err != nil {
		return report.Report{}, err
	}
	return BuildWith(rec, slots, rec.ProbeHz(), link), nil
}
