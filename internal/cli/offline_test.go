package cli

import (
	"strings"
	"testing"
)

// Advice rebuilt from a file says so, naming the file, in every format:
// saved samples (diagnose --from-samples) and a saved report (report
// --input).
func TestReportsRebuiltFromAFileSaySo(t *testing.T) {
	samples := "../classify/testdata/apply-bound-pg16-diag.json"
	js, _, _ := run(t, "diagnose", "--from-samples", samples, "--json")
	saved := writeFile(t, js)
	for _, format := range []string{"text", "markdown", "json", "html"} {
		for _, c := range []struct {
			args []string
			file string
		}{
			{[]string{"diagnose", "--from-samples", samples, "--format", format}, samples},
			{[]string{"report", "--input", saved, "--format", format}, saved},
		} {
			out, _, _ := run(t, c.args...)
			flat := strings.Join(strings.Fields(strings.ReplaceAll(out, "\\", "")), " ") // unwrapped, unescaped
			said := strings.Contains(flat, "rebuilt from "+c.file+" recorded at")
			if format == "json" {
				said = strings.Contains(flat, `"rebuilt_from": { "file": "`+c.file+`"`)
			}
			if !said {
				t.Errorf("%s: the output does not say it was rebuilt from %s:\n%.600s", strings.Join(c.args, " "), c.file, out)
			}
		}
	}
}

// A saved report or samples file whose names a server could not have
// written is refused with one line naming the file and the field.
func TestTamperedFilesAreRefusedNamingTheField(t *testing.T) {
	samples := "../classify/testdata/apply-bound-pg16-diag.json"
	js, _, _ := run(t, "diagnose", "--from-samples", samples, "--json")
	slot := between(js, `"slot": "`, `"`)
	if slot == "" {
		t.Fatalf("no slot in the report:\n%.300s", js)
	}
	cases := []struct{ name, content, field string }{
		{"a slot name with a quote", strings.Replace(js, `"slot": "`+slot+`"`, `"slot": "x'; DROP TABLE t; --"`, 1), "paths[0].slot"},
		{"an unknown verdict", strings.Replace(js, `"verdict": "subscriber-apply-cpu"`, `"verdict": "all-fine"`, 1), "paths[0].verdict"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.content == js {
				t.Fatalf("the case changed nothing")
			}
			f := writeFile(t, c.content)
			out, code, _ := run(t, "report", "--input", f)
			if code != ExitUsage || !strings.Contains(out, c.field) || !strings.Contains(out, f) || strings.Count(strings.TrimSpace(out), "\n") > 0 {
				t.Errorf("exit %d, output %q: want exit %d and one line naming %s and %s", code, out, ExitUsage, f, c.field)
			}
		})
	}
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}
