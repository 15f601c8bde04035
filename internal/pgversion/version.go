package pgversion

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// Version is a PostgreSQL release: 16.14 is Major 16, Minor 14. Development and
// pre-release builds (17devel, 18beta1) have Minor 0. Releases before 10 used two
// numbers for the major (9.6.24): they parse as Major 9, Minor 6, and are not
// supported by lagscope. The zero Version means unknown.
type Version struct {
	// Major is the major version, such as 16; 0 when unknown.
	Major int
	// Minor is the minor (bug-fix) release within Major, such as 14.
	Minor int
}

// Parse reads a version from any of the forms PostgreSQL prints:
//
//	postgres (PostgreSQL) 16.14            postgres --version, initdb --version
//	15.18 (Debian 15.18-0+deb12u1)         SHOW server_version
//	PostgreSQL 18.4 on x86_64-pc-linux-gnu version()
//	160014                                 SHOW server_version_num
//	17devel, 18beta1                       development builds (Minor 0)
//
// It takes the first word that starts with a digit.
func Parse(s string) (Version, error) {
	for _, word := range strings.Fields(s) {
		if word[0] < '0' || word[0] > '9' {
			continue
		}
		if n, err := strconv.Atoi(word); err == nil && n >= 10000 {
			return FromNum(n), nil
		}
		major, rest := leadingInt(word)
		if major <= 0 {
			break
		}
		v := Version{Major: major}
		if strings.HasPrefix(rest, ".") {
			if minor, _ := leadingInt(rest[1:]); minor >= 0 {
				v.Minor = minor
			}
		}
		return v, nil
	}
	return Version{}, fmt.Errorf("no PostgreSQL version in %q; expected output such as \"postgres (PostgreSQL) 16.14\"", s)
}

// leadingInt parses the digits at the start of s; n is -1 when there are none.
func leadingInt(s string) (n int, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil {
		return -1, s
	}
	return n, s[i:]
}

// FromNum converts server_version_num (160014 for 16.14, 90624 for
// 9.6.24) into a Version. Zero or negative numbers give the zero Version.
func FromNum(n int) Version {
	switch {
	case n <= 0:
		return Version{}
	case n >= 100000:
		return Version{Major: n / 10000, Minor: n % 10000}
	default:
		return Version{Major: n / 10000, Minor: n / 100 % 100}
	}
}

// String prints the version as PostgreSQL does, "16.14"; the zero Version
// prints as "unknown".
func (v Version) String() string {
	if v.Major == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// Compare returns -1, 0 or +1 as v is older than, the same as or newer than w.
func (v Version) Compare(w Version) int {
	if c := cmp.Compare(v.Major, w.Major); c != 0 {
		return c
	}
	return cmp.Compare(v.Minor, w.Minor)
}

// AtLeast reports whether v's major version is at least major.
func (v Version) AtLeast(major int) bool { return v.Major >= major }
