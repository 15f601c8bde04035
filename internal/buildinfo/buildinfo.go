// Package buildinfo says which lagscope this is: its release version (or,
// outside a release, the module's pseudo-version), the commit it was built
// from and the Go that built it, as the Go toolchain stamped them in the
// binary (runtime/debug.ReadBuildInfo).
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// release is the semantic version of a release build ("v0.1.0"), set by
// 'make dist' with -ldflags "-X github.com/lagscope/lagscope/internal/buildinfo.release=v0.1.0"
// from the VERSION file; empty in every other build.
var release string

// Info is what the binary knows of its own build.
type Info struct {
	Version  string // release version ("v0.1.0"), else the module version ("v0.0.0-20261202...-abcdef"), "devel" when none was stamped
	Commit   string // VCS revision, "" when not built from a checkout
	Time     string // the commit's time (RFC 3339), "" when unknown
	Modified bool   // built from a checkout with uncommitted changes
	Go       string // the Go version that built it
}

// Read returns the binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	return withRelease(fromBuildInfo(bi), release)
}

// withRelease puts a release build's version (with or without its "v")
// in place of the toolchain's.
func withRelease(i Info, rel string) Info {
	if rel = strings.TrimSpace(rel); rel != "" {
		i.Version = "v" + strings.TrimPrefix(rel, "v")
	}
	return i
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	i := Info{Version: bi.Main.Version, Go: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Commit = s.Value
		case "vcs.time":
			i.Time = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	if i.Version == "" || i.Version == "(devel)" {
		i.Version = "devel"
		if len(i.Commit) >= 12 {
			i.Version += "-" + i.Commit[:12]
		}
	}
	return i
}

// Version is the short version every report and metric carries.
func Version() string { return Read().Version }

// String is the version line 'lagscope version' prints.
func (i Info) String() string {
	s := "lagscope " + i.Version
	if i.Commit != "" {
		s += fmt.Sprintf(" (commit %.12s", i.Commit)
		if i.Time != "" {
			s += ", " + i.Time
		}
		if i.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + ", built with " + i.Go
}
