package cli

import (
	"strings"
	"testing"
)

// A faster link's what-if line needs today's rate (lagscope measures WAL,
// not the wire): --what-if-link alone, or a rate no faster than today's,
// is a usage error that says what to give; both give the line.
func TestWhatIfLinkNeedsTodaysRate(t *testing.T) {
	rec := "../classify/testdata/network-pg16-diag.json"
	cases := []struct {
		args []string
		want int
		says string
	}{
		{[]string{"--what-if-link", "8MB/s"}, ExitUsage, "needs --link-rate"},
		{[]string{"--what-if-link", "2MB/s", "--link-rate", "3MB/s"}, ExitUsage, "not faster than --link-rate 3MB/s"},
		{[]string{"--what-if-link", "8MB/s", "--link-rate", "3MB/s"}, ExitFinding, "link=8MB/s: a link of 8.0 MB/s (today 3.0 MB/s): drains about 13.8 MB/s"},
	}
	for _, c := range cases {
		out, code, _ := run(t, append([]string{"diagnose", "--from-samples", rec}, c.args...)...)
		if flat := strings.Join(strings.Fields(out), " "); code != c.want || !strings.Contains(flat, c.says) {
			t.Errorf("%v: exit %d, want %d with %q; output %q", c.args, code, c.want, c.says, head(flat))
		}
	}
}
