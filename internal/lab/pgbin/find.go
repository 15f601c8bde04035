package pgbin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/pgversion"
)

// DefaultDistroRoot is where Debian and Ubuntu install PostgreSQL: one
// <major>/bin directory per installed major.
const DefaultDistroRoot = "/usr/lib/postgresql"

// EnvPGBin names the environment variable that points at a bin directory, as
// --pg-bin does.
const EnvPGBin = "LAGSCOPE_PG_BIN"

// serverTools are the programs a directory must hold to run a lab cluster.
var serverTools = []string{"postgres", "initdb", "pg_ctl"}

// probeTimeout bounds one `postgres --version`.
const probeTimeout = 15 * time.Second

// Dir is a directory holding PostgreSQL's server programs.
type Dir struct {
	// Bin is the absolute directory holding postgres, initdb and pg_ctl.
	Bin string
	// Version is what `postgres --version` in Bin reports.
	Version pgversion.Version
}

// FindOptions says where Find looks. The zero value searches the usual places
// for any major version, using the real environment, PATH and programs.
type FindOptions struct {
	// PGBin is the --pg-bin flag: use this directory and no other. "" searches.
	PGBin string
	// PGVersion is the --pg-version flag: the major version wanted, such as 16.
	// 0 takes the first version found.
	PGVersion int
	// Script is scripts/get-postgres.sh, run when PGVersion is not found
	// installed. "" looks for it next to the executable (./scripts and
	// ../scripts) and in the checkout lagscope was built from, never in the
	// working directory (see locateScript).
	Script string
	// DistroRoot holds Debian-style <major>/bin directories. "" means
	// DefaultDistroRoot.
	DistroRoot string
	// Progress receives get-postgres.sh's progress messages (its stderr) while
	// it downloads. nil discards them; failures still quote the last lines.
	Progress io.Writer

	// Env reads an environment variable. nil means os.Getenv.
	Env func(string) string
	// LookPath finds a program on PATH. nil means exec.LookPath.
	LookPath func(string) (string, error)
	// Run runs a program and returns its standard output; an error should say
	// what the program wrote to stderr. nil runs it for real, sending stderr to
	// Progress.
	Run func(ctx context.Context, name string, args ...string) ([]byte, error)

	// locate finds get-postgres.sh when Script is "". nil means locateScript
	// from the executable and the source checkout. Tests replace it so that
	// they never run the real script.
	locate func() string
}

// processEnv is os.Getenv, except that as root LAGSCOPE_CACHE defaults to
// /var/cache/lagscope: the lab runs servers as an unprivileged user, who
// cannot read root's home (get-postgres.sh does the same).
func processEnv(key string) string {
	v := os.Getenv(key)
	if v == "" && key == "LAGSCOPE_CACHE" && os.Geteuid() == 0 {
		return filepath.Dir(RootCache)
	}
	return v
}

// withDefaults fills the nil seams and empty paths.
func (o FindOptions) withDefaults() FindOptions {
	if o.DistroRoot == "" {
		o.DistroRoot = DefaultDistroRoot
	}
	if o.Env == nil {
		o.Env = processEnv
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	if o.locate == nil {
		o.locate = func() string {
			exe, _ := os.Executable()
			return locateScript(exe, sourceRepo())
		}
	}
	if o.Run == nil {
		progress := o.Progress
		o.Run = func(ctx context.Context, name string, args ...string) ([]byte, error) {
			return runCommand(ctx, progress, name, args...)
		}
	}
	return o
}

// Find locates PostgreSQL's server binaries. See FindContext.
func Find(o FindOptions) (Dir, error) {
	return FindContext(context.Background(), o)
}

// FindContext locates PostgreSQL's server binaries, looking in order at:
//
//  1. o.PGBin (--pg-bin), and nowhere else when it is set;
//  2. $LAGSCOPE_PG_BIN;
//  3. the directory `pg_config --bindir` prints, pg_config taken from PATH;
//  4. DistroRoot/<major>/bin, newest major first.
//
// Each must hold postgres, initdb and pg_ctl; `postgres --version` gives the
// version. With o.PGVersion 0 the first that works wins. Otherwise the first of
// that major wins; failing that, the newest build of it in lagscope's cache
// (${LAGSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lagscope}/pg/<major>.*/bin),
// failing that the directory scripts/get-postgres.sh prints after downloading
// one. ctx bounds the programs run, including that download.
func FindContext(ctx context.Context, o FindOptions) (Dir, error) {
	o = o.withDefaults()
	if o.PGBin != "" {
		d, err := o.explicit(ctx, o.PGBin, "--pg-bin")
		if err != nil {
			return Dir{}, err
		}
		return d, nil
	}

	var seen []string // what was found but not wanted, for the error
	if env := o.Env(EnvPGBin); env != "" {
		d, err := o.explicit(ctx, env, "$"+EnvPGBin)
		switch {
		case err == nil:
			return d, nil
		case !errors.As(err, new(*wrongMajorError)):
			return Dir{}, err
		}
		// Another major than --pg-version asks for: keep looking.
		seen = append(seen, describe(d)+" ($"+EnvPGBin+")")
	}

	for _, bin := range o.installed(ctx) {
		d, err := o.probe(ctx, bin)
		if err != nil {
			continue // a client-only install, a broken one: not a server
		}
		if o.PGVersion == 0 || d.Version.Major == o.PGVersion {
			return d, nil
		}
		seen = append(seen, describe(d))
	}
	if err := ctx.Err(); err != nil {
		return Dir{}, fmt.Errorf("look for PostgreSQL: %w", err) // interrupted, not absent
	}

	if o.PGVersion == 0 {
		return Dir{}, fmt.Errorf("no PostgreSQL server binaries (postgres, initdb, pg_ctl) found via $%s, pg_config on PATH or %s/*/bin: "+
			"install PostgreSQL (apt-get install postgresql, or run scripts/install-deps.sh) or pass --pg-bin DIR", EnvPGBin, o.DistroRoot)
	}
	return o.fetch(ctx, seen)
}

// wrongMajorError says a directory works but holds another major than asked.
type wrongMajorError struct{ msg string }

func (e *wrongMajorError) Error() string { return e.msg }

// explicit checks a directory the user named with flag (--pg-bin or
// $LAGSCOPE_PG_BIN). It still returns the Dir along with a *wrongMajorError.
func (o FindOptions) explicit(ctx context.Context, bin, flag string) (Dir, error) {
	d, err := o.probe(ctx, bin)
	if err != nil {
		return Dir{}, fmt.Errorf("%s %s: %w; point it at the directory holding postgres, initdb and pg_ctl (such as %s/15/bin)", flag, bin, err, o.DistroRoot)
	}
	if o.PGVersion != 0 && d.Version.Major != o.PGVersion {
		return d, &wrongMajorError{fmt.Sprintf("%s %s holds PostgreSQL %s, not %d; drop one of --pg-bin and --pg-version, or pass --pg-bin \"$(scripts/get-postgres.sh %d)\"",
			flag, bin, d.Version, o.PGVersion, o.PGVersion)}
	}
	return d, nil
}

// installed lists the candidate bin directories of installed PostgreSQL: the one
// pg_config names, then DistroRoot/<major>/bin newest first, without duplicates.
func (o FindOptions) installed(ctx context.Context) []string {
	var dirs []string
	if pgConfig, err := o.LookPath("pg_config"); err == nil {
		runCtx, cancel := context.WithTimeout(ctx, probeTimeout)
		out, err := o.Run(runCtx, pgConfig, "--bindir")
		cancel()
		if err == nil {
			if bin := strings.TrimSpace(string(out)); bin != "" {
				dirs = append(dirs, filepath.Clean(bin))
			}
		}
	}
	for _, bin := range distroBins(o.DistroRoot) {
		if !slices.Contains(dirs, bin) {
			dirs = append(dirs, bin)
		}
	}
	return dirs
}

// distroBins lists root/<major>/bin directories, highest major first.
func distroBins(root string) []string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var majors []int
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > 0 {
			majors = append(majors, n)
		}
	}
	slices.Sort(majors)
	slices.Reverse(majors)
	bins := make([]string, 0, len(majors))
	for _, m := range majors {
		bin := filepath.Join(root, strconv.Itoa(m), "bin")
		if fi, err := os.Stat(bin); err == nil && fi.IsDir() {
			bins = append(bins, bin)
		}
	}
	return bins
}

// probe checks that bin holds the server programs and reads their version.
func (o FindOptions) probe(ctx context.Context, bin string) (Dir, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return Dir{}, fmt.Errorf("resolve %s: %w", bin, err)
	}
	if err := hasPrograms(abs, serverTools); err != nil {
		return Dir{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	postgres := filepath.Join(abs, "postgres")
	out, err := o.Run(ctx, postgres, "--version")
	if err != nil {
		return Dir{}, fmt.Errorf("%s --version: %w", postgres, err)
	}
	v, err := pgversion.Parse(string(out))
	if err != nil {
		return Dir{}, fmt.Errorf("%s --version: %w", postgres, err)
	}
	return Dir{Bin: abs, Version: v}, nil
}

// hasPrograms reports which of names are not executable files in dir.
func hasPrograms(dir string, names []string) error {
	var missing []string
	for _, name := range names {
		if !isExecutable(filepath.Join(dir, name)) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no executable %s in it", strings.Join(missing, ", "))
	}
	return nil
}

// isExecutable reports whether path is a regular file someone may execute.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// describe names a found directory for error messages.
func describe(d Dir) string {
	return fmt.Sprintf("PostgreSQL %s in %s", d.Version, d.Bin)
}
