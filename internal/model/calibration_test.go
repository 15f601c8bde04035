package model

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// notOwnWork are the lab states whose apply worker spends its time on
// something beyond the rows it writes (a trigger, the scans of FULL rows
// without an index, a costly CHECK constraint, GIN expression index or
// generated column): ApplyCostPerWAL is what they would cost without it.
var notOwnWork = map[string]bool{"trigger-cpu": true, "full-identity": true,
	"check-constraint": true, "expression-index": true, "generated-column": true}

// TestApplyCostPerWALHoldsOnRecordings checks the calibrated cost against
// every recorded window in which the apply worker limited on its own CPU
// work and the subscriber's WAL was read: its time per byte of WAL written
// stays within 20% of ApplyCostPerWAL.
func TestApplyCostPerWALHoldsOnRecordings(t *testing.T) {
	exps, err := recordings.Load("../classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range exps {
		if e.Verdict != "subscriber-apply-cpu" || notOwnWork[e.State] {
			continue
		}
		rec, err := recordings.Read(filepath.Dir(e.File), strings.TrimSuffix(filepath.Base(e.File), ".json"))
		if err != nil {
			t.Fatal(err)
		}
		ins := Inputs(rec, nil)
		var slots []string
		for _, in := range ins {
			slots = append(slots, in.Slot)
		}
		i := e.Path(slots)
		if i < 0 || ins[i].SubWALPerSent == 0 {
			continue
		}
		in := ins[i]
		v := Classify(in)
		for _, s := range v.Stages {
			if s.Name != StageApply || s.Own > 0.1 {
				continue
			}
			n++
			k := ApplyCostOf(s, in.Summary.Progress(), in.SubWALPerSent)
			if r := k / DefaultCalibration.ApplyCostPerWAL; r < 0.8 || r > 1.2 {
				t.Errorf("%s: the apply worker took %.1f ms per MB of WAL written, %.2fx ApplyCostPerWAL", filepath.Base(e.File), k*1e9, r)
			}
		}
	}
	if n < 3 {
		t.Fatalf("%d recordings of an apply worker limited by its own CPU with the subscriber's WAL read: want 3 or more", n)
	}
}
