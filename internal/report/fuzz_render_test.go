package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/valid"
)

// Any file given to 'lagscope report --input' is refused with a one-line
// error, or holds only valid slot names and known verdicts and stages and
// renders in every format without an error: a report Read accepts and a
// renderer refuses fails the target.
func FuzzReadReportRenders(f *testing.F) {
	for _, p := range []string{"testdata/schema1-apply-bound-pg16.json", "testdata/network-pg16-schema4.json", "../diagnose/testdata/apply-bound-pg16-diag.json.golden"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(bytes.Replace(b, []byte(`"slot": "lab_sub"`), []byte(`"slot": "x'; DROP TABLE t; --"`), 1))
		f.Add(bytes.Replace(b, []byte(`"verdict": "`), []byte(`"verdict": "x`), 1))
	}
	f.Add([]byte(`{"tool":"lagscope","schema_version":3,"paths":[{"slot":"s","verdict":"network","lag_bytes":-1,"series":{"points":[{"current_lsn":"0/1"}]}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Read(bytes.NewReader(b))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		for _, p := range r.Paths {
			if valid.SlotName("", p.Slot) != nil || valid.OneOf("", string(p.Name), names(model.Names()...)) != nil {
				t.Fatalf("accepted path of slot %q with verdict %q", p.Slot, p.Name)
			}
		}
		for _, format := range []string{"text", "markdown", "json", "html"} {
			if err := Render(&bytes.Buffer{}, r, format); err != nil {
				t.Fatalf("%s rendering of an accepted report failed: %v", format, err)
			}
		}
	})
}
