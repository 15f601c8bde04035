package model

import (
	"strings"
	"testing"
)

// TestAnIdleApplyWorkersCapacityIsItsWALAtTheCalibratedCost: the network
// state on 16.14 drained through the link with the apply worker 18% busy;
// the subscriber's WAL was read, so its headroom is that WAL written at
// ApplyCostPerWAL, more than drain / Work gives, and the next-limit line
// says which figure it used.
func TestAnIdleApplyWorkersCapacityIsItsWALAtTheCalibratedCost(t *testing.T) {
	in := Inputs(load(t, "../classify/testdata/network-drained-pg16-diag.json"), nil)[0]
	v := Judge(in)
	if v.Next == nil || v.Next.Stage != StageApply {
		t.Fatalf("next limit %+v: want the apply worker", v.Next)
	}
	d := in.Summary.Progress()
	want := 1 / (DefaultCalibration.ApplyCostPerWAL * in.SubWALPerSent) / d
	if r := v.Next.Headroom / want; r < 0.999 || r > 1.001 {
		t.Errorf("headroom %.2f, want %.2f (the WAL it writes at the calibrated cost)", v.Next.Headroom, want)
	}
	for _, s := range v.Stages {
		if s.Name == StageApply && (s.Headroom != v.Next.Headroom || 1/s.Work() >= want) {
			t.Errorf("apply headroom %.2f, 1/Work %.2f: want %.2f, above 1/Work", s.Headroom, 1/s.Work(), want)
		}
	}
	if !strings.Contains(v.Next.Text, "an idle worker's wakes cost it more per byte") {
		t.Errorf("next limit %q: want the calibrated cost named", v.Next.Text)
	}
	in.SubWALPerSent = 0
	if v := Judge(in); v.Next == nil || v.Next.Headroom >= want {
		t.Errorf("without the subscriber's WAL: next %+v, want 1 / Work", v.Next)
	}
}
