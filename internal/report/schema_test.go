package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/invopop/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
)

var updateSchema = flag.Bool("update", false, "rewrite docs/schema/*.schema.json from the report types")

// The JSON Schemas of the diagnose and check reports are generated from
// their Go types (with their doc comments as descriptions), so they cannot
// drift from what lagscope writes: the committed files must equal the
// generated ones (go test ./internal/report -run Schema -update rewrites
// them), and every golden JSON report validates against its schema.
func TestTheReportSchemasMatchTheTypesAndTheGoldens(t *testing.T) {
	checks := checkReports(t)
	t.Chdir("../..") // the doc comments are read from the module's root
	cases := []struct {
		name    string
		of      any
		goldens []string
	}{
		{"diagnose", &report.Report{}, glob(t, "internal/diagnose/testdata/*.json.golden")},
		{"check", &audit.Report{}, checks},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &jsonschema.Reflector{RequiredFromJSONSchemaTags: true, Mapper: func(ty reflect.Type) *jsonschema.Schema {
				if ty == reflect.TypeFor[lsn.LSN]() {
					// Written as text, as PostgreSQL prints it.
					return &jsonschema.Schema{Type: "string", Pattern: "^[0-9A-F]{1,8}/[0-9A-F]{1,8}$", Description: "a WAL position (pg_lsn), as PostgreSQL prints it"}
				}
				if ty == reflect.TypeFor[model.Optional[float64]]() {
					// Written as its number, or null when not measured.
					return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "number"}, {Type: "null"}}}
				}
				return nil
			}}
			if err := r.AddGoComments("github.com/lagscope/lagscope", "./internal"); err != nil {
				t.Fatal(err)
			}
			s := r.Reflect(c.of)
			s.ID = jsonschema.ID("https://github.com/lagscope/lagscope/docs/schema/" + c.name + ".schema.json")
			s.Title = "lagscope " + c.name + " report"
			want, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			file := filepath.Join("docs", "schema", c.name+".schema.json")
			if *updateSchema {
				if err := os.WriteFile(file, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from the schema of the Go types: run go test ./internal/report -run Schema -update", file)
			}
			doc, err := validator.UnmarshalJSON(bytes.NewReader(got))
			if err != nil {
				t.Fatal(err)
			}
			comp := validator.NewCompiler()
			if err := comp.AddResource(file, doc); err != nil {
				t.Fatal(err)
			}
			sch, err := comp.Compile(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.goldens) < 2 {
				t.Fatalf("found %d golden reports", len(c.goldens))
			}
			for _, g := range c.goldens {
				b, err := os.ReadFile(g)
				if err != nil {
					t.Fatal(err)
				}
				inst, err := validator.UnmarshalJSON(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", g, err)
				}
				if err := sch.Validate(inst); err != nil {
					t.Errorf("%s does not validate against %s: %v", g, file, err)
				}
			}
		})
	}
}

func glob(t *testing.T, pattern string) []string {
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkReports writes the check reports of the recorded lab snapshots
// (internal/audit/testdata) as 'lagscope check --format json' would, and
// returns their absolute paths.
func checkReports(t *testing.T) []string {
	var out []string
	for _, f := range glob(t, "../audit/testdata/misconfigured-pg*.json") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s audit.Snapshots
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		var j bytes.Buffer
		if err := audit.JSON(&j, audit.NewReport(s, audit.Run(s, audit.All))); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(t.TempDir(), filepath.Base(f))
		if err := os.WriteFile(name, j.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	return out
}
