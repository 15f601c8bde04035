package pg

import "fmt"

// Version is a PostgreSQL server version, e.g. {16, 14}.
type Version struct {
	Major, Minor int
}

// VersionFromNum converts server_version_num (160014) to a Version.
func VersionFromNum(n int) Version {
	if n >= 100000 {
		return Version{Major: n / 10000, Minor: n % 10000}
	}
	return Version{Major: n / 10000, Minor: (n / 100) % 100}
}

// AtLeast reports whether v's major version is at least major.
func (v Version) AtLeast(major int) bool { return v.Major >= major }

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }
