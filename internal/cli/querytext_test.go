package cli

import (
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
)

// Every command that captures query text offers --keep-query-literals, and
// the sampler keeps constants only when it is given.
func TestKeepQueryLiteralsReachesTheSampler(t *testing.T) {
	root := NewRoot()
	for _, name := range []string{"diagnose", "watch", "exporter"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatalf("find %s: %v", name, err)
		}
		if c.Flags().Lookup("keep-query-literals") == nil {
			t.Errorf("%s has no --keep-query-literals", name)
		}
	}
	if (diagnose.Options{}).SampleOptions(time.Second).KeepQueryLiterals {
		t.Errorf("constants are kept by default")
	}
	if !(diagnose.Options{KeepQueryLiterals: true}).SampleOptions(time.Second).KeepQueryLiterals {
		t.Errorf("--keep-query-literals did not reach the sampler")
	}
}
