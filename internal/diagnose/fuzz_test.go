package diagnose

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// Any file given to --from-samples is refused with an error or diagnosed
// into a report that renders and reads back: no panic, no NaN in the JSON
// (which encoding/json refuses). HTML (charts, ~1 s a report) is left to
// FuzzReadReport, which renders what a report can hold.
func FuzzRecordingToReport(f *testing.F) {
	for _, name := range []string{"stalled-pg16-diag.json", "lost-slot-pg15-diag.json", "stalled-pg18-burst.json", "apply-bound-pg15-lab.json"} {
		b, err := os.ReadFile("../classify/testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"version":6,"ticks":[{"at":"2026-12-02T04:00:00Z","pub_ok":true,"current_lsn":"0/10"},{"at":"2026-12-02T04:00:00Z","pub_ok":true,"current_lsn":"0/5"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := sample.ReadRecording(bytes.NewReader(b))
		if err != nil {
			return
		}
		r := Build(rec, nil, 20)
		var js bytes.Buffer
		if err := report.JSON(&js, r); err != nil {
			t.Fatalf("JSON of the report: %v", err)
		}
		for name, render := range map[string]func(io.Writer, report.Report) error{"text": report.Text, "markdown": report.Markdown} {
			if err := render(io.Discard, r); err != nil {
				t.Fatalf("%s rendering: %v", name, err)
			}
		}
		if _, err := report.Read(&js); err != nil {
			t.Fatalf("the report does not read back: %v", err)
		}
	})
}
