package pgversion

import "testing"

// Whatever a server or binary prints, Parse finds a version that prints
// and parses back to itself, or says it found none; never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"postgres (PostgreSQL) 16.14\n", "15.18 (Debian 15.18-0+deb12u1)", "PostgreSQL 18.4 on x86_64-pc-linux-gnu",
		"160014", "17devel", "18beta1", "9.6.24", "", "  ", "0", "99999999999999999999", "1.", "x 3.2.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		if v.Major <= 0 || v.Minor < 0 {
			t.Fatalf("Parse(%q) = %+v", s, v)
		}
		if back, err := Parse(v.String()); err != nil || back != v {
			t.Fatalf("Parse(%q) = %+v prints as %q, which parses to %+v (%v)", s, v, v, back, err)
		}
	})
}
