package diagnose

import (
	"testing"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/model"
)

// Every check the verdict table says bears on a verdict is one of the
// checks of 'lagscope check': a renamed check would silently stop fitting
// the verdict's cause and advice to the setup.
func TestTheChecksThatBearOnAVerdictExist(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range audit.All {
		ids[string(c.ID)] = true
	}
	for _, s := range model.Table {
		for _, id := range s.Checks {
			if !ids[id] {
				t.Errorf("verdict %s: check %q bears on it, but audit.All has no such check", s.Name, id)
			}
		}
	}
}
