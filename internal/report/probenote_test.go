package report

import "testing"

func TestTheProbeNoteNamesEachServersRateWhenTheyDiffer(t *testing.T) {
	for _, c := range []struct {
		r    Report
		want string
	}{
		{Report{ProbeHz: 20, Publisher: Server{}}, "wait events at 20 Hz"},
		{Report{ProbeHz: 10, Publisher: Server{ProbeHz: 10}, Subscriber: &Server{ProbeHz: 10}}, "wait events at 10 Hz"},
		{Report{ProbeHz: 10, Publisher: Server{ProbeHz: 10}, Subscriber: &Server{ProbeHz: 20}}, "wait events at 10 Hz on the publisher, 20 Hz on the subscriber"},
		{Report{ProbeHz: 20, Publisher: Server{ProbeHz: 20}, Subscriber: &Server{}}, "wait events at 20 Hz"},
		{Report{}, "no wait events probed"},
	} {
		if got := c.r.probeNote(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
