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
	p := r.Paths[0]
	if len(p.Evidence) == 0 || len(p.Helps) == 0 {
		t.Fatalf("evidence %+v, helps %+v; want the saved lines", p.Evidence, p.Helps)
	}
	for _, e := range p.Evidence {
		if e.Key != "" || e.Text == "" || e.Figures != nil {
			t.Errorf("evidence %+v: a line saved as text reads back as its text, with no key or figures", e)
		}
	}
	for _, a := range append(p.Helps, p.NotHelps...) {
		if a.Key != "" || a.Text == "" {
			t.Errorf("remedy %+v: a remedy saved as text reads back as its text, with no key", a)
		}
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

// Read takes what lagscope writes as a diagnosis (a report, a lab run's
// diagnosis) and refuses its other files with the command that renders
// them.
func TestReadTellsLagscopesFilesApart(t *testing.T) {
	rep, err := os.ReadFile("testdata/schema1-apply-bound-pg16.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, in, wantErr string
	}{
		{"a diagnose report", string(rep), ""},
		{"a lab run with its diagnosis", `{"version":1,"scenario":"apply-bound","diagnosis":` + string(rep) + `}`, ""},
		{"a lab run without one", `{"version":1,"scenario":"network"}`, "lagscope lab run network --diagnose --json"},
		{"a check report", `{"schema_version":1,"tool":"lagscope","kind":"check","results":[]}`, "lagscope check --input FILE"},
		{"saved samples", `{"version":6,"ticks":[]}`, "lagscope diagnose --from-samples FILE"},
		{"something else", `{"a":1}`, "not a lagscope report"},
	}
	for _, c := range cases {
		r, err := Read(bytes.NewReader([]byte(c.in)))
		switch {
		case c.wantErr == "" && (err != nil || len(r.Paths) != 1):
			t.Errorf("%s: %v, %d paths; want the report", c.name, err, len(r.Paths))
		case c.wantErr != "" && (err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.wantErr))):
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.wantErr)
		}
	}
}
