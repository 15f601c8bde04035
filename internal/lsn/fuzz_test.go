package lsn

import "testing"

// A position that parses prints back to a text that parses to it; JSON of
// any shape is read or refused without a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0/0", "16/B374D848", "FFFFFFFF/FFFFFFFF", "1/100000000", "/", "a/b", "-0/1", "+1/1", "0x1/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var j LSN
		_ = j.UnmarshalJSON([]byte(s))
		l, err := Parse(s)
		if err != nil {
			return
		}
		if back, err := Parse(l.String()); err != nil || back != l {
			t.Fatalf("Parse(%q) = %d prints as %q, which parses to %d (%v)", s, uint64(l), l, uint64(back), err)
		}
	})
}
