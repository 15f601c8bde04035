package diagnose

import (
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
)

// The setup is not read from a server that did not answer the window's last
// tick: a frozen path would hold the read for its whole timeout.
func TestTheSideSilentAtTheWindowsEndIsNamed(t *testing.T) {
	sub := &sample.Server{Version: "16.14"}
	cases := []struct {
		rec  sample.Recording
		want string
	}{
		{sample.Recording{}, ""},
		{sample.Recording{Nodes: sample.PairNodes(sample.Server{}, sub), Ticks: []sample.Tick{{Reads: []sample.Read{{Node: sample.PublisherNode, OK: false}, {Node: sample.SubscriberNode, OK: true}}}, {Reads: []sample.Read{{Node: sample.PublisherNode, OK: true}, {Node: sample.SubscriberNode, OK: true}}}}}, ""},
		{sample.Recording{Nodes: sample.PairNodes(sample.Server{}, sub), Ticks: []sample.Tick{{Reads: []sample.Read{{Node: sample.PublisherNode, OK: true}, {Node: sample.SubscriberNode, OK: true}}}, {Reads: []sample.Read{{Node: sample.PublisherNode, OK: false}, {Node: sample.SubscriberNode, OK: true}}}}}, sample.Publisher},
		{sample.Recording{Nodes: sample.PairNodes(sample.Server{}, sub), Ticks: []sample.Tick{{Reads: []sample.Read{{Node: sample.PublisherNode, OK: true}, {Node: sample.SubscriberNode, OK: false}}}}}, sample.Subscriber},
		{sample.Recording{Ticks: []sample.Tick{{Reads: []sample.Read{{Node: sample.PublisherNode, OK: true}}}}}, ""},
	}
	for i, c := range cases {
		if got := silentAtEnd(&c.rec); got != c.want {
			t.Errorf("case %d: %q, want %q", i, got, c.want)
		}
	}
}
