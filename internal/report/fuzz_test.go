package report

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// Any file given to 'lagscope report --input' is refused with an error or
// renders in every format without a panic.
func FuzzReadReport(f *testing.F) {
	for _, p := range []string{"testdata/schema1-apply-bound-pg16.json", "../diagnose/testdata/apply-bound-pg16-diag.json.golden"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"tool":"lagscope","schema_version":3,"paths":[{"lag_bytes":-1,"series":{"points":[{"current_lsn":"0/1"}]}}]}`))
	f.Add([]byte(`{"tool":"lagscope","schema_version":99}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		for name, render := range map[string]func(io.Writer, Report) error{"text": Text, "markdown": Markdown, "html": HTML} {
			if err := render(io.Discard, r); err != nil {
				t.Logf("%s rendering refused it: %v", name, err)
			}
		}
	})
}
