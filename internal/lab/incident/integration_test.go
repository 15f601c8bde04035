package incident

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// TestIntegrationTheTimelineFindsEachScriptedIncidentAndTheRecordingGivesTheLiveVerdicts
// records one pair through the short script (a lock held on the
// subscriber, a slow link, a starved walsender, the subscription
// disabled, an apply-bound backlog, caught-up stretches between): the
// timeline finds each incident, named right, within one 10-s window of
// the lab's times, nothing over a caught-up stretch, and diagnosing each
// live diagnose's window from the recording gives the live verdict.
func TestIntegrationTheTimelineFindsEachScriptedIncidentAndTheRecordingGivesTheLiveVerdicts(t *testing.T) {
	labtest.Once(t)
	dir, pgbench := labtest.PGBench(t)
	rec := filepath.Join(t.TempDir(), "rec")
	res, err := Run(context.Background(), Options{
		Pair:    lab.PairOptions{Bin: dir.Bin, PubCPUs: []int{0}, SubCPUs: []int{1}, Rows: 100_000, Binary: true, Streaming: "on"},
		PGBench: pgbench, Script: Short(), Dir: rec, Log: labtest.Log{T: t}})
	if err != nil {
		t.Fatal(err)
	}
	made := 0
	for _, s := range res.Stretches {
		t.Logf("%-11s %s-%s want %s, incident %+v, live %+v", s.Kind, s.From.Format("15:04:05"), s.To.Format("15:04:05"), s.Want, s.Incident, s.Live)
		if !s.OK {
			t.Errorf("%s stretch: the timeline: %s", s.Kind, s.Why)
		}
		if s.Kind == Drain {
			continue
		}
		made++
		if s.Live == nil || !s.Live.Same() {
			t.Errorf("%s stretch: live diagnose %+v: want the recording to give its verdict again", s.Kind, s.Live)
		}
	}
	if made != len(Plan) {
		t.Errorf("%d stretches made besides the drains, want %d", made, len(Plan))
	}
	if !res.OK() {
		t.Error("the run is not OK")
	}
	if res.Recording.Bytes == 0 {
		t.Error("the recording is empty")
	}
	t.Logf("recording %d bytes (%.0f per hour); overhead %+v", res.Recording.Bytes, res.Recording.BytesPerHour, res.Overhead)
}
