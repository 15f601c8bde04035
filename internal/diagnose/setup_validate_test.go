package diagnose

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/testkit/recordings"
)

// A recording's saved setup with a name no server writes is refused, and
// the report says so, rather than advice being built from it.
func TestASavedSetupWithAnInvalidNameIsRefused(t *testing.T) {
	rec, err := recordings.Read("../classify/testdata", "full-identity-index-pg16-diag")
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := setupOf(rec); s == nil {
		t.Fatalf("the recorded setup does not read: %s", rec.SetupError)
	}
	tampered := strings.Replace(string(rec.Setup), `"type": "logical"`, `"type": "logical; DROP"`, 1)
	tampered = strings.Replace(tampered, `"type":"logical"`, `"type":"logical; DROP"`, 1)
	if tampered == string(rec.Setup) {
		t.Fatalf("the setup holds no logical slot to tamper with")
	}
	rec.Setup = []byte(tampered)
	if s, _ := setupOf(rec); s != nil || !strings.Contains(rec.SetupError, "slots[0].type") {
		t.Errorf("tampered setup: %v, error %q; want it refused naming the field", s != nil, rec.SetupError)
	}
}
