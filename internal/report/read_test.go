package report

import (
	"bytes"
	"os"
	"testing"
)

// A report saved by the previous schema (1: no time series) still reads
// and renders as it did then.
func TestAReportOfSchema1StillRenders(t *testing.T) {
	f, err := os.Open("testdata/schema1-apply-bound-pg16.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		t.Fatalf("read a schema 1 report: %v", err)
	}
	if r.SchemaVersion != 1 || len(r.Paths) != 1 || r.Paths[0].Series != nil {
		t.Fatalf("schema %d, %d paths, series %v; want the saved schema 1 report as it was", r.SchemaVersion, len(r.Paths), r.Paths[0].Series)
	}
	var out bytes.Buffer
	if err := Text(&out, r); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/schema1-apply-bound-pg16.text.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("text rendering of the schema 1 report changed:\n%s", out.String())
	}
}
