package sample

import (
	"os"
	"testing"
	"time"
)

func TestMergeSpansTheRecordingsInOrder(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	a := &Recording{Version: 4, Start: t0, End: t0.Add(10 * time.Second), Nodes: PairNodes(Server{Version: "16.13"}, nil),
		Ticks: []Tick{{At: t0}, {At: t0.Add(time.Second)}}, Probes: []Probe{{At: t0}}}
	b := &Recording{Version: 5, Start: t0.Add(10 * time.Second), End: t0.Add(20 * time.Second), Nodes: PairNodes(Server{Version: "16.14"}, nil),
		Ticks: []Tick{{At: t0.Add(11 * time.Second)}}, Gaps: []Gap{{Side: Subscriber}}}
	m := Merge(nil, a, b)
	if !m.Start.Equal(a.Start) || !m.End.Equal(b.End) {
		t.Errorf("window %s..%s, want %s..%s", m.Start, m.End, a.Start, b.End)
	}
	if len(m.Ticks) != 3 || !m.Ticks[2].At.Equal(b.Ticks[0].At) || len(m.Probes) != 1 || len(m.Gaps) != 1 {
		t.Errorf("merged %d ticks, %d probes, %d gaps; want 3, 1, 1 in order", len(m.Ticks), len(m.Probes), len(m.Gaps))
	}
	if m.Server(PublisherNode).Version != "16.14" || m.Version != 5 {
		t.Errorf("publisher %s, version %d; want the newest recording's (16.14, 5)", m.Server(PublisherNode).Version, m.Version)
	}
	if len(a.Ticks) != 2 {
		t.Errorf("Merge changed its input: %d ticks", len(a.Ticks))
	}
	if Merge(nil) != nil {
		t.Error("Merge of nothing is not nil")
	}
}

// A recorded real window split in two and merged again gives back the
// same ticks and probes: what the exporter's rolling window relies on.
func TestMergeOfASplitRecordingIsTheRecording(t *testing.T) {
	f, err := os.Open("../classify/testdata/network-pg16-diag.json")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	rec, err := ReadRecording(f)
	if err != nil {
		t.Fatal(err)
	}
	mid := rec.Ticks[len(rec.Ticks)/2].At
	first, second := *rec, *rec
	first.Ticks, second.Ticks, first.Probes, second.Probes = nil, nil, nil, nil
	first.End, second.Start = mid, mid
	for _, tk := range rec.Ticks {
		if tk.At.Before(mid) {
			first.Ticks = append(first.Ticks, tk)
		} else {
			second.Ticks = append(second.Ticks, tk)
		}
	}
	for _, p := range rec.Probes {
		if p.At.Before(mid) {
			first.Probes = append(first.Probes, p)
		} else {
			second.Probes = append(second.Probes, p)
		}
	}
	m := Merge(&first, &second)
	if len(m.Ticks) != len(rec.Ticks) || len(m.Probes) != len(rec.Probes) || !m.Start.Equal(rec.Start) || !m.End.Equal(rec.End) {
		t.Errorf("merged %d ticks %d probes %s..%s, want %d %d %s..%s", len(m.Ticks), len(m.Probes), m.Start, m.End, len(rec.Ticks), len(rec.Probes), rec.Start, rec.End)
	}
}
