package pgbin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// ScriptPath is get-postgres.sh's place in a lagscope checkout.
const ScriptPath = "scripts/get-postgres.sh"

// fetch finds PostgreSQL o.PGVersion in lagscope's cache or has get-postgres.sh
// download it. seen lists what was found of other majors, for the error.
func (o FindOptions) fetch(ctx context.Context, seen []string) (Dir, error) {
	major := o.PGVersion
	notFound := fmt.Sprintf("PostgreSQL %d is not installed", major)
	if len(seen) > 0 {
		notFound += " (found " + strings.Join(seen, "; ") + ")"
	}

	if cache := CacheDir(o.Env); cache != "" {
		for _, bin := range cachedBins(cache, major) {
			if d, err := o.probe(ctx, bin); err == nil && d.Version.Major == major {
				return d, nil
			}
		}
	}

	script := o.Script
	if script == "" {
		script = o.locate()
	}
	if script == "" {
		return Dir{}, fmt.Errorf("%s and %s is not next to lagscope or in the checkout it was built from: "+
			"run scripts/get-postgres.sh %d from a lagscope checkout and pass the directory it prints as --pg-bin",
			notFound, ScriptPath, major)
	}

	out, err := o.Run(ctx, "bash", script, strconv.Itoa(major))
	if err != nil {
		return Dir{}, fmt.Errorf("%s, and %s %d failed: %w; run it by hand to see why, or pass --pg-bin DIR",
			notFound, script, major, err)
	}
	bin, err := parseScriptOutput(out)
	if err != nil {
		return Dir{}, fmt.Errorf("%s %d: %w", script, major, err)
	}
	d, err := o.probe(ctx, bin)
	if err != nil {
		return Dir{}, fmt.Errorf("%s %d printed %s, which does not work: %w; remove it and run the script again", script, major, bin, err)
	}
	if d.Version.Major != major {
		return Dir{}, fmt.Errorf("%s %d printed %s, which holds PostgreSQL %s; remove it and run the script again", script, major, bin, d.Version)
	}
	return d, nil
}

// RootCache is the cache used when running as root without LAGSCOPE_CACHE.
const RootCache = "/var/cache/lagscope/pg"

// CacheDir is where get-postgres.sh keeps downloaded builds, one directory per
// npm package version: ${LAGSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lagscope}/pg.
// (As root, Find's default environment sets LAGSCOPE_CACHE to /var/cache/lagscope.)
// It returns "" when none of those variables is set. env reads a variable; nil
// means os.Getenv.
func CacheDir(env func(string) string) string {
	if env == nil {
		env = os.Getenv
	}
	if dir := env("LAGSCOPE_CACHE"); dir != "" {
		return filepath.Join(dir, "pg")
	}
	if dir := env("XDG_CACHE_HOME"); dir != "" {
		return filepath.Join(dir, "lagscope", "pg")
	}
	if dir := env("HOME"); dir != "" {
		return filepath.Join(dir, ".cache", "lagscope", "pg")
	}
	return ""
}

// cachedBins lists cache/<major>.*/bin, newest version first.
func cachedBins(cache string, major int) []string {
	matches, _ := filepath.Glob(filepath.Join(cache, strconv.Itoa(major)+".*", "bin"))
	slices.SortFunc(matches, func(a, b string) int {
		return -compareDotted(filepath.Base(filepath.Dir(a)), filepath.Base(filepath.Dir(b)))
	})
	return matches
}

// compareDotted orders npm versions such as 16.9.0-beta.15 and 16.14.0-beta.17
// by their numeric parts in turn, then as strings.
func compareDotted(a, b string) int {
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '-' })
	}
	pa, pb := split(a), split(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, errA := strconv.Atoi(pa[i])
		nb, errB := strconv.Atoi(pb[i])
		if errA == nil && errB == nil {
			if na != nb {
				return cmp.Compare(na, nb)
			}
			continue
		}
		if c := strings.Compare(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(pa), len(pb))
}

// locateScript finds get-postgres.sh next to the executable exe (in ./scripts
// or ../scripts, following symlinks) or in repo, the lagscope checkout the
// binary was built from (sourceRepo). It never looks at the working
// directory: a lagscope run as root from a directory another user prepared
// must not run that user's script. A script that another account could have
// changed (not owned by root or the current user, or writable by group or
// others) is not taken. It returns "" when there is none; exe and repo may be
// "".
func locateScript(exe, repo string) string {
	var bases []string
	if exe != "" {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dir := filepath.Dir(exe)
		bases = append(bases, dir, filepath.Dir(dir))
	}
	if repo != "" && isFile(filepath.Join(repo, "go.mod")) {
		bases = append(bases, repo)
	}
	for _, base := range bases {
		if p := filepath.Join(base, ScriptPath); trustedFile(p) {
			return p
		}
	}
	return ""
}

// sourceRepo is the checkout this package was compiled from (the directory
// three above this file), or "" when the build recorded no absolute path
// (-trimpath) or the checkout is gone.
func sourceRepo() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	repo := filepath.Join(filepath.Dir(file), "..", "..", "..") // internal/lab/pgbin/fetch.go
	if repo = filepath.Clean(repo); !isFile(filepath.Join(repo, "go.mod")) {
		return ""
	}
	return repo
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// trustedFile reports whether path is a regular file that only root or the
// current user can change: owned by one of them, not writable by group or
// others.
func trustedFile(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (st.Uid == 0 || int(st.Uid) == os.Geteuid())
}

// parseScriptOutput takes the bin directory from get-postgres.sh's standard
// output: its last non-empty line, which must be an absolute path.
func parseScriptOutput(out []byte) (string, error) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return "", errors.New("printed nothing; it should print the bin directory it installed")
	}
	if !filepath.IsAbs(last) {
		return "", fmt.Errorf("printed %q instead of an absolute bin directory", last)
	}
	return filepath.Clean(last), nil
}
