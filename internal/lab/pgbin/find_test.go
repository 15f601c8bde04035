package pgbin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/pgversion"
)

func TestFind(t *testing.T) {
	tests := []struct {
		name string
		// setup builds the machine under root and returns the options to find with.
		setup       func(t *testing.T, root string) FindOptions
		wantBin     string // relative to root
		wantVersion pgversion.Version
		wantErr     []string // substrings of the error
	}{
		{
			name: "The --pg-bin directory wins over everything else",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/flag", "16.2")
				fakeBin(t, root+"/env", "17.1")
				fakeBin(t, root+"/distro/18/bin", "18.4")
				return FindOptions{PGBin: root + "/flag", Env: envMap(map[string]string{EnvPGBin: root + "/env"})}
			},
			wantBin: "flag", wantVersion: pgversion.Version{Major: 16, Minor: 2},
		},
		{
			name: "A --pg-bin directory missing server programs is an error naming them",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/flag", "16.2", "postgres", "psql")
				return FindOptions{PGBin: root + "/flag"}
			},
			wantErr: []string{"--pg-bin", "no executable initdb, pg_ctl"},
		},
		{
			name: "A --pg-bin of another major than --pg-version is an error, not a download",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/flag", "15.18")
				return FindOptions{PGBin: root + "/flag", PGVersion: 16}
			},
			wantErr: []string{"holds PostgreSQL 15.18, not 16", "scripts/get-postgres.sh 16"},
		},
		{
			name: "LAGSCOPE_PG_BIN is used when no flag is given",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/env", "17.1")
				fakeBin(t, root+"/distro/18/bin", "18.4")
				return FindOptions{Env: envMap(map[string]string{EnvPGBin: root + "/env"})}
			},
			wantBin: "env", wantVersion: pgversion.Version{Major: 17, Minor: 1},
		},
		{
			name: "LAGSCOPE_PG_BIN pointing at an empty directory is an error saying to fix it",
			setup: func(t *testing.T, root string) FindOptions {
				os.MkdirAll(root+"/env", 0o755)
				fakeBin(t, root+"/distro/18/bin", "18.4")
				return FindOptions{Env: envMap(map[string]string{EnvPGBin: root + "/env"})}
			},
			wantErr: []string{"$LAGSCOPE_PG_BIN", "no executable postgres, initdb, pg_ctl"},
		},
		{
			name: "The directory pg_config names comes before the distro directories",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/pgdg/bin", "16.9")
				fakeBin(t, root+"/distro/18/bin", "18.4")
				pgConfig := writeScript(t, root+"/path/pg_config", "echo "+root+"/pgdg/bin\n")
				return FindOptions{LookPath: func(string) (string, error) { return pgConfig, nil }}
			},
			wantBin: "pgdg/bin", wantVersion: pgversion.Version{Major: 16, Minor: 9},
		},
		{
			name: "The newest distro major is taken when nothing else is set",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/distro/9/bin", "9.6")
				fakeBin(t, root+"/distro/14/bin", "14.22")
				fakeBin(t, root+"/distro/15/bin", "15.18")
				os.MkdirAll(root+"/distro/common/bin", 0o755)
				return FindOptions{}
			},
			wantBin: "distro/15/bin", wantVersion: pgversion.Version{Major: 15, Minor: 18},
		},
		{
			name: "A distro directory with only client programs is skipped",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/distro/17/bin", "17.2", "psql", "pg_dump")
				fakeBin(t, root+"/distro/16/bin", "16.14")
				return FindOptions{}
			},
			wantBin: "distro/16/bin", wantVersion: pgversion.Version{Major: 16, Minor: 14},
		},
		{
			name: "An older installed major is used when --pg-version asks for it",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/distro/16/bin", "16.14")
				fakeBin(t, root+"/distro/15/bin", "15.18")
				return FindOptions{PGVersion: 15, locate: noScript}
			},
			wantBin: "distro/15/bin", wantVersion: pgversion.Version{Major: 15, Minor: 18},
		},
		{
			name: "The newest cached build is used when the wanted major is not installed",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/distro/15/bin", "15.18")
				fakeBin(t, root+"/cache/pg/16.9.0-beta.15/bin", "16.9")
				fakeBin(t, root+"/cache/pg/16.14.0-beta.17/bin", "16.14")
				fakeBin(t, root+"/cache/pg/18.4.0-beta.17/bin", "18.4")
				return FindOptions{PGVersion: 16, locate: noScript,
					Env: envMap(map[string]string{"LAGSCOPE_CACHE": root + "/cache"})}
			},
			wantBin: "cache/pg/16.14.0-beta.17/bin", wantVersion: pgversion.Version{Major: 16, Minor: 14},
		},
		{
			name: "get-postgres.sh runs when the wanted major is nowhere on the machine",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/distro/15/bin", "15.18")
				fakeBin(t, root+"/downloaded/18.4.0-beta.17/bin", "18.4")
				script := writeScript(t, root+"/scripts/get-postgres.sh",
					`[ "$1" = 18 ] || exit 9; echo progress >&2; echo `+root+"/downloaded/18.4.0-beta.17/bin\n")
				return FindOptions{PGVersion: 18, Script: script}
			},
			wantBin: "downloaded/18.4.0-beta.17/bin", wantVersion: pgversion.Version{Major: 18, Minor: 4},
		},
		{
			name: "A LAGSCOPE_PG_BIN of another major than --pg-version falls through to the download",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/env", "15.18")
				fakeBin(t, root+"/downloaded/bin", "17.10")
				script := writeScript(t, root+"/get.sh", "echo "+root+"/downloaded/bin\n")
				return FindOptions{PGVersion: 17, Script: script,
					Env: envMap(map[string]string{EnvPGBin: root + "/env"})}
			},
			wantBin: "downloaded/bin", wantVersion: pgversion.Version{Major: 17, Minor: 10},
		},
		{
			name: "With nothing installed and no version asked the error says how to install",
			setup: func(t *testing.T, root string) FindOptions {
				return FindOptions{}
			},
			wantErr: []string{"apt-get install postgresql", "--pg-bin DIR"},
		},
		{
			name: "A missing major without get-postgres.sh at hand tells the user to run it",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/distro/15/bin", "15.18")
				return FindOptions{PGVersion: 16, locate: noScript}
			},
			wantErr: []string{"PostgreSQL 16 is not installed", "found PostgreSQL 15.18 in", "run scripts/get-postgres.sh 16"},
		},
		{
			name: "A failing get-postgres.sh is an error quoting its last words",
			setup: func(t *testing.T, root string) FindOptions {
				script := writeScript(t, root+"/get.sh", "echo 'get-postgres: error: npm not found' >&2; exit 1\n")
				return FindOptions{PGVersion: 16, Script: script}
			},
			wantErr: []string{"exit status 1", "npm not found", "run it by hand"},
		},
		{
			name: "A get-postgres.sh that prints a directory of another major is an error",
			setup: func(t *testing.T, root string) FindOptions {
				fakeBin(t, root+"/downloaded/bin", "17.10")
				script := writeScript(t, root+"/get.sh", "echo "+root+"/downloaded/bin\n")
				return FindOptions{PGVersion: 16, Script: script}
			},
			wantErr: []string{"holds PostgreSQL 17.10"},
		},
		{
			name: "A get-postgres.sh that prints nothing is an error",
			setup: func(t *testing.T, root string) FindOptions {
				script := writeScript(t, root+"/get.sh", "exit 0\n")
				return FindOptions{PGVersion: 16, Script: script}
			},
			wantErr: []string{"printed nothing"},
		},
		{
			name: "A server program that fails to report its version makes the directory unusable",
			setup: func(t *testing.T, root string) FindOptions {
				dir := fakeBin(t, root+"/flag", "16.2")
				writeScript(t, dir+"/postgres", "echo 'error while loading shared libraries: libicuuc.so.60' >&2; exit 127\n")
				return FindOptions{PGBin: dir}
			},
			wantErr: []string{"--version", "libicuuc.so.60"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			o := tt.setup(t, root)
			if o.DistroRoot == "" {
				o.DistroRoot = root + "/distro"
			}
			if o.Env == nil {
				o.Env = envMap(nil)
			}
			if o.LookPath == nil {
				o.LookPath = noPath
			}
			if o.locate == nil {
				o.locate = noScript
			}
			got, err := Find(o)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Find() = %+v, want an error containing %q", got, tt.wantErr)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("Find() error = %q, want it to contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Find(): %v", err)
			}
			want := Dir{Bin: filepath.Join(root, tt.wantBin), Version: tt.wantVersion}
			if got != want {
				t.Errorf("Find() = %+v, want %+v", got, want)
			}
		})
	}
}

// noScript is a locate seam for a machine without get-postgres.sh.
func noScript() string { return "" }

func TestFindPassesProgressThrough(t *testing.T) {
	root := t.TempDir()
	fakeBin(t, root+"/downloaded/bin", "16.14")
	script := writeScript(t, root+"/get.sh", "echo 'get-postgres: downloading' >&2; echo "+root+"/downloaded/bin\n")
	var progress strings.Builder
	_, err := Find(FindOptions{PGVersion: 16, Script: script, Progress: &progress,
		DistroRoot: root + "/distro", Env: envMap(nil), LookPath: noPath})
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	if got := progress.String(); got != "get-postgres: downloading\n" {
		t.Errorf("Progress got %q, want the script's stderr", got)
	}
}

func TestCacheDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{name: "LAGSCOPE_CACHE wins", env: map[string]string{"LAGSCOPE_CACHE": "/c", "XDG_CACHE_HOME": "/x", "HOME": "/h"}, want: "/c/pg"},
		{name: "XDG_CACHE_HOME comes next", env: map[string]string{"XDG_CACHE_HOME": "/x", "HOME": "/h"}, want: "/x/lagscope/pg"},
		{name: "HOME's .cache is the fallback", env: map[string]string{"HOME": "/h"}, want: "/h/.cache/lagscope/pg"},
		{name: "Without any of them there is no cache", env: nil, want: ""},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CacheDir(envMap(tt.env)); got != tt.want {
				t.Errorf("CacheDir() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCachedBinsNewestFirst(t *testing.T) {
	cache := t.TempDir()
	for _, v := range []string{"16.9.0-beta.15", "16.14.0-beta.16", "16.14.0-beta.17", "16.1.1-beta.9", "17.1.0-beta.14"} {
		os.MkdirAll(filepath.Join(cache, v, "bin"), 0o755)
	}
	var got []string
	for _, bin := range cachedBins(cache, 16) {
		got = append(got, filepath.Base(filepath.Dir(bin)))
	}
	want := []string{"16.14.0-beta.17", "16.14.0-beta.16", "16.9.0-beta.15", "16.1.1-beta.9"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("cachedBins(16) = %v, want %v", got, want)
	}
}

func TestLocateScript(t *testing.T) {
	root := t.TempDir()
	// An installed layout: root/inst/bin/lagscope and root/inst/scripts/get-postgres.sh.
	writeScript(t, root+"/inst/scripts/get-postgres.sh", "")
	writeScript(t, root+"/inst/bin/lagscope", "")
	// A checkout: root/repo/go.mod, root/repo/scripts/get-postgres.sh.
	writeScript(t, root+"/repo/scripts/get-postgres.sh", "")
	os.WriteFile(root+"/repo/go.mod", []byte("module x\n"), 0o644)
	// A directory with scripts/ but no go.mod is not a checkout.
	writeScript(t, root+"/loose/scripts/get-postgres.sh", "")
	// A script others may write to is not run.
	writeScript(t, root+"/open/scripts/get-postgres.sh", "")
	os.Chmod(root+"/open/scripts/get-postgres.sh", 0o777)
	os.WriteFile(root+"/open/go.mod", []byte("module x\n"), 0o644)

	tests := []struct {
		name, exe, repo, want string
	}{
		{name: "The script next to the executable's parent directory is found", exe: root + "/inst/bin/lagscope", repo: "", want: root + "/inst/scripts/get-postgres.sh"},
		{name: "The checkout the binary was built from is found", exe: root + "/tmp/x.test", repo: root + "/repo", want: root + "/repo/scripts/get-postgres.sh"},
		{name: "A scripts directory outside a checkout is not taken", exe: "", repo: root + "/loose", want: ""},
		{name: "A script writable by others is not taken", exe: "", repo: root + "/open", want: ""},
		{name: "Nothing anywhere gives the empty string", exe: "", repo: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := locateScript(tt.exe, tt.repo); got != tt.want {
				t.Errorf("locateScript(%q, %q) = %q, want %q", tt.exe, tt.repo, got, tt.want)
			}
		})
	}
}

// The checkout a test binary was built from is this one, wherever the
// test runs: the working directory plays no part.
func TestSourceRepoIsTheCheckoutNotTheWorkingDirectory(t *testing.T) {
	wd, _ := os.Getwd()
	want := filepath.Dir(filepath.Dir(filepath.Dir(wd))) // go test runs in internal/lab/pgbin
	if got := sourceRepo(); got != want {
		t.Errorf("sourceRepo() = %q, want %q", got, want)
	}
	t.Chdir(t.TempDir())
	if got := sourceRepo(); got != want {
		t.Errorf("after a chdir, sourceRepo() = %q, want %q", got, want)
	}
}

func TestParseScriptOutput(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    string
		wantErr bool
	}{
		{name: "The single line is the bin directory", out: "/c/pg/16.14.0-beta.17/bin\n", want: "/c/pg/16.14.0-beta.17/bin"},
		{name: "Stray earlier lines are ignored", out: "noise\n/c/bin\n\n", want: "/c/bin"},
		{name: "A relative path is an error", out: "bin\n", wantErr: true},
		{name: "No output is an error", out: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseScriptOutput([]byte(tt.out))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseScriptOutput(%q) = %q, %v; want %q, error: %v", tt.out, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestFindStopsWhenCancelled(t *testing.T) {
	root := t.TempDir()
	fakeBin(t, root+"/distro/15/bin", "15.18")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := FindContext(ctx, FindOptions{DistroRoot: root + "/distro", Env: envMap(nil), LookPath: noPath, locate: noScript})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("FindContext(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestFindThroughTheRunSeam(t *testing.T) {
	root := t.TempDir()
	// Empty files: only the Run seam "executes" them.
	fakeBin(t, root+"/distro/16/bin", "ignored")
	var calls []string
	run := func(_ context.Context, name string, args ...string) ([]byte, error) {
		calls = append(calls, name+" "+strings.Join(args, " "))
		switch name {
		case "/usr/bin/pg_config":
			return nil, errors.New("exit status 1: pg_config: could not find own program executable")
		case root + "/distro/16/bin/postgres":
			return []byte("postgres (PostgreSQL) 16.14\n"), nil
		}
		return nil, errors.New("unexpected program " + name)
	}
	d, err := Find(FindOptions{
		DistroRoot: root + "/distro",
		Env:        envMap(nil),
		LookPath:   func(string) (string, error) { return "/usr/bin/pg_config", nil },
		Run:        run,
		locate:     noScript,
	})
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	if want := (Dir{Bin: root + "/distro/16/bin", Version: pgversion.Version{Major: 16, Minor: 14}}); d != want {
		t.Errorf("Find() = %+v, want %+v (a failing pg_config is skipped)", d, want)
	}
	wantCalls := []string{"/usr/bin/pg_config --bindir", root + "/distro/16/bin/postgres --version"}
	if strings.Join(calls, "\n") != strings.Join(wantCalls, "\n") {
		t.Errorf("programs run:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(wantCalls, "\n"))
	}
}
