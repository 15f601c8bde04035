// Package unknown writes figures that were not measured as JSON null. In
// Go they stay -1 (every rule compares against that); in a report a
// consumer must never average them, so the JSON says null, and reading a
// report turns null (and an older report's -1) back into -1.
package unknown

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Marshal writes v (a struct without a MarshalJSON of its own, usually an
// alias of the type being written) as JSON with the numeric fields named
// by keys set to null when negative.
func Marshal(v any, keys ...string) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(keys) == 0 {
		return b, err
	}
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = regexp.QuoteMeta(k)
	}
	re := regexp.MustCompile(`"(` + strings.Join(quoted, "|") + `)":-[0-9][0-9.eE+-]*`)
	return re.ReplaceAll(b, []byte(`"$1":null`)), nil
}
