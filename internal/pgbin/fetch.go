package pgbin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
		return Dir{}, fmt.Errorf("%s and %s is not next to lagscope or in the working directory's module: "+
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
// or ../scripts, following symlinks) or in the nearest directory at or above
// cwd that holds go.mod and scripts/get-postgres.sh. It returns "" when there
// is none; exe and cwd may be "".
func locateScript(exe, cwd string) string {
	if exe != "" {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dir := filepath.Dir(exe)
		for _, base := range []string{dir, filepath.Dir(dir)} {
			if p := filepath.Join(base, ScriptPath); isFile(p) {
				return p
			}
		}
	}
	for dir := cwd; dir != ""; {
		if isFile(filepath.Join(dir, "go.mod")) && isFile(filepath.Join(dir, ScriptPath)) {
			return filepath.Join(dir, ScriptPath)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
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
