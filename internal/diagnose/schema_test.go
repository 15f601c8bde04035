package diagnose

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// TestEveryRecordingsReportValidatesAgainstTheSchema builds the JSON report
// of every recording of the regression set (internal/classify/testdata)
// and validates it against docs/schema/diagnose.schema.json (which
// internal/report's schema test keeps equal to the report's types): the
// schema covers what every recorded case writes, not only the goldens.
func TestEveryRecordingsReportValidatesAgainstTheSchema(t *testing.T) {
	file := filepath.Join("..", "..", "docs", "schema", "diagnose.schema.json")
	comp := validator.NewCompiler()
	sch, err := comp.Compile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "classify", "testdata")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in %s (%v)", dir, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		rec, err := recordings.Read(dir, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var js bytes.Buffer
		if err := report.JSON(&js, Build(rec, nil, 20)); err != nil {
			t.Fatal(err)
		}
		inst, err := validator.UnmarshalJSON(&js)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: its report does not validate against %s: %v", name, file, err)
		}
	}
}
