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
		{sample.Recording{Subscriber: sub, Ticks: []sample.Tick{{PubOK: false, SubOK: true}, {PubOK: true, SubOK: true}}}, ""},
		{sample.Recording{Subscriber: sub, Ticks: []sample.Tick{{PubOK: true, SubOK: true}, {PubOK: false, SubOK: true}}}, sample.Publisher},
		{sample.Recording{Subscriber: sub, Ticks: []sample.Tick{{PubOK: true, SubOK: false}}}, sample.Subscriber},
		{sample.Recording{Ticks: []sample.Tick{{PubOK: true}}}, ""},
	}
	for i, c := range cases {
		if got := silentAtEnd(&c.rec); got != c.want {
			t.Errorf("case %d: %q, want %q", i, got, c.want)
		}
	}
}
