// Command dist writes lagscope's release artifacts from what scripts/dist.sh
// built: the tarballs, .deb and .rpm packages (nfpm), an OCI image layout
// (go-containerregistry, no daemon), the exporter's Helm chart and
// SHA256SUMS. It is a module of its own so that its packaging libraries
// never become dependencies of lagscope.
//
//	go run . -root ../.. -stage ../../dist/stage -out ../../dist -version 0.1.0
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Build is one release build: where its inputs are and what it writes.
type Build struct {
	Root    string    // the checkout (LICENSE, README.md, docs/, packaging/)
	Stage   string    // lagscope_V_OS_ARCH/lagscope, man/, completions/
	Out     string    // where the artifacts go
	Version string    // semantic version without "v"
	Date    time.Time // every file's time in every artifact (reproducible)
	Targets []Target
}

// Target is one platform a binary was built for.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// Name is the base name of the target's tarball and staged directory.
func (b Build) Name(t Target) string {
	return fmt.Sprintf("lagscope_%s_%s_%s", b.Version, t.OS, t.Arch)
}

// Binary is the staged binary of t.
func (b Build) Binary(t Target) string { return filepath.Join(b.Stage, b.Name(t), "lagscope") }

func main() {
	var b Build
	var targets, date string
	flag.StringVar(&b.Root, "root", ".", "the lagscope checkout")
	flag.StringVar(&b.Stage, "stage", "dist/stage", "the staged binaries, man pages and completions")
	flag.StringVar(&b.Out, "out", "dist", "where the artifacts go")
	flag.StringVar(&b.Version, "version", "", "the release's semantic version (the VERSION file)")
	flag.StringVar(&targets, "targets", "linux/amd64,linux/arm64,darwin/arm64", "the platforms built")
	flag.StringVar(&date, "date", "", "the files' time, YYYY-MM-DD (default: the release date in CHANGELOG.md, else today)")
	flag.Parse()
	if err := run(b, targets, date); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(b Build, targets, date string) error {
	if b.Version == "" || strings.HasPrefix(b.Version, "v") {
		return fmt.Errorf("-version: give the VERSION file's version, without v (got %q)", b.Version)
	}
	for _, t := range strings.Split(targets, ",") {
		os, arch, ok := strings.Cut(strings.TrimSpace(t), "/")
		if !ok {
			return fmt.Errorf("-targets %q: give OS/ARCH, comma-separated", targets)
		}
		b.Targets = append(b.Targets, Target{os, arch})
	}
	var err error
	if b.Date, err = releaseDate(b.Root, b.Version, date); err != nil {
		return err
	}
	steps := []struct {
		name string
		do   func(Build) error
	}{
		{"tarballs", writeTarballs},
		{"packages", writePackages},
		{"image", writeImage},
		{"chart", writeChart},
		{"checksums", writeChecksums},
	}
	for _, s := range steps {
		if err := s.do(b); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// releaseDate is the date of the version's section in CHANGELOG.md
// ("## [0.1.0] - 2026-12-05"), or date when given, or today.
func releaseDate(root, version, date string) (time.Time, error) {
	if date != "" {
		d, err := time.Parse(time.DateOnly, date)
		if err != nil {
			return d, fmt.Errorf("-date %q: give YYYY-MM-DD", date)
		}
		return d, nil
	}
	if cl, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md")); err == nil {
		prefix := "## [" + version + "] - "
		for _, l := range strings.Split(string(cl), "\n") {
			if s, ok := strings.CutPrefix(l, prefix); ok {
				if d, err := time.Parse(time.DateOnly, strings.TrimSpace(s)); err == nil {
					return d, nil
				}
			}
		}
	}
	return time.Now().UTC().Truncate(24 * time.Hour), nil
}
