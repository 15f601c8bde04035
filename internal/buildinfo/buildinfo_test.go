package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "4642718abcdef0123456789"}, {Key: "vcs.time", Value: "2026-12-02T20:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := fromBuildInfo(stamped).String(), "lagscope v0.3.0 (commit 4642718abcde, 2026-12-02T20:00:00Z, modified), built with go1.26.8"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	bare := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	if got := fromBuildInfo(bare); got.Version != "devel" || got.String() != "lagscope devel, built with go1.26.8" {
		t.Errorf("an unstamped build: %+v %q", got, got.String())
	}
	checkout := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "4642718abcdef0123456789"}}}
	if got := fromBuildInfo(checkout).Version; got != "devel-4642718abcde" {
		t.Errorf("a checkout without a module version: %q", got)
	}
}

func TestReleaseVersion(t *testing.T) {
	checkout := fromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "4642718abcdef0123456789"}}})
	cases := []struct {
		name, release, want string
	}{
		{"a build that is not a release keeps the toolchain's version", "", "lagscope devel-4642718abcde (commit 4642718abcde), built with go1.26.8"},
		{"a release build prints the release version", "v0.1.0", "lagscope v0.1.0 (commit 4642718abcde), built with go1.26.8"},
		{"a release version from the VERSION file gets its v", "0.1.0\n", "lagscope v0.1.0 (commit 4642718abcde), built with go1.26.8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := withRelease(checkout, c.release).String(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
