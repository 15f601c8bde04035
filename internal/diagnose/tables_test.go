package diagnose

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// A recording with the subscriber's per-table counters shows, in every
// format, what the apply worker did to each table: a REPLICA IDENTITY FULL
// table without an index reads tens of thousands of rows per change.
func TestEveryFormatShowsWhatTheSubscriberDidToEachTable(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "full-identity-pg16-counters")
	if err != nil {
		t.Fatal(err)
	}
	r := Build(rec, nil, 20)
	if len(r.Paths) == 0 || len(r.Paths[0].Tables) == 0 {
		t.Fatal("the recording has no per-table counters")
	}
	var text, md, html strings.Builder
	for _, f := range []struct {
		b      *strings.Builder
		render func() error
	}{
		{&text, func() error { return report.Text(&text, r) }},
		{&md, func() error { return report.Markdown(&md, r) }},
		{&html, func() error { return report.HTML(&html, r) }},
	} {
		if err := f.render(); err != nil {
			t.Fatal(err)
		}
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String()} {
		if !strings.Contains(out, "public.hot") || !strings.Contains(out, "rows read/change") || !strings.Contains(out, "pg_stat_user_tables") {
			t.Errorf("%s: no per-table work (public.hot, rows read/change)", name)
		}
	}
	for _, l := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "public.hot") {
			f := strings.Fields(l)
			if read := f[len(f)-2]; !strings.HasSuffix(read, "k") {
				t.Errorf("rows read per change %q: want tens of thousands (a scan per change of a 100k-row table)\n%s", read, l)
			}
			t.Log(l)
		}
	}
}
