package exporter

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/sample"
)

func recordedStep(t *testing.T) *sample.Recording {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "classify", "testdata", "apply-bound-pg16-diag.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := sample.ReadRecording(f)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestAFailedStepIsRecordedAsAGapWithItsCause(t *testing.T) {
	root := t.TempDir()
	rs, err := openRecorders(Record{Dir: root, RetainAge: -1}, []monitor.Options{{Pair: "orders"}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	rec := recordedStep(t)
	rs.write(monitor.Update{Pair: "orders", At: rec.End, Step: rec, Window: rec})
	later := *rec
	shift := time.Minute
	later.Start, later.End = rec.Start.Add(shift), rec.End.Add(shift)
	later.Ticks, later.Probes = nil, nil
	for _, tk := range rec.Ticks {
		tk.At = tk.At.Add(shift)
		later.Ticks = append(later.Ticks, tk)
	}
	rs.write(monitor.Update{Pair: "orders", At: rec.End.Add(30 * time.Second), Err: errors.New("subscriber: connection refused"),
		Down: map[string]string{sample.Subscriber: "connection refused"}})
	rs.write(monitor.Update{Pair: "orders", At: later.End, Step: &later, Window: &later})
	rs.close()
	got, err := recorder.Read(filepath.Join(root, "orders"), rec.Start, later.End)
	if err != nil {
		t.Fatal(err)
	}
	var causes []string
	for _, g := range got.Gaps {
		causes = append(causes, g.Side+": "+g.Cause)
	}
	if len(got.Gaps) != 2 || !strings.Contains(strings.Join(causes, "; "), "subscriber: not sampled: connection refused") {
		t.Fatalf("gaps %q: want one per side, the subscriber's naming the refused connection", causes)
	}
	if string(got.Setup) != string(rec.Setup) {
		t.Fatal("the setup of the step's window was not recorded")
	}
}

func TestAFailedWriteStopsTheRecordingWithOneLogLineAndAMetric(t *testing.T) {
	root := t.TempDir()
	var logs bytes.Buffer
	rs, err := openRecorders(Record{Dir: root, RetainAge: -1}, []monitor.Options{{Pair: "orders"}}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	rec := recordedStep(t)
	rs.write(monitor.Update{Pair: "orders", At: rec.End, Step: rec, Window: rec})
	reg := prometheus.NewRegistry()
	reg.MustRegister(rs)
	if v := testutil.ToFloat64(onlyPair(rs, descRecUp)); v != 1 {
		t.Fatalf("lagscope_recorder_up %g while writing, want 1", v)
	}
	// The directory goes away: the index can no longer be written.
	if err := os.RemoveAll(filepath.Join(root, "orders")); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		rs.write(monitor.Update{Pair: "orders", At: rec.End, Step: rec, Window: rec})
	}
	if n := strings.Count(logs.String(), "recording stopped"); n != 1 {
		t.Fatalf("%d log lines say the recording stopped, want 1:\n%s", n, logs.String())
	}
	if v := testutil.ToFloat64(onlyPair(rs, descRecUp)); v != 0 {
		t.Fatalf("lagscope_recorder_up %g after a failed write, want 0", v)
	}
	if _, err := reg.Gather(); err != nil {
		t.Fatalf("gather: %v", err)
	}
}

// onlyPair is a collector of rs's series of d alone.
func onlyPair(rs *recorders, d *prometheus.Desc) prometheus.Collector {
	return collectorFunc(func(ch chan<- prometheus.Metric) {
		all := make(chan prometheus.Metric, 16)
		rs.Collect(all)
		close(all)
		for m := range all {
			if m.Desc() == d {
				ch <- m
			}
		}
	})
}

type collectorFunc func(chan<- prometheus.Metric)

func (f collectorFunc) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(f, ch) }
func (f collectorFunc) Collect(ch chan<- prometheus.Metric) { f(ch) }
