package cluster

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// MarkerFile names the file that marks a directory as a lab directory made by
// lagscope. Clean removes only directories that have it.
const MarkerFile = "lagscope-lab.json"

// dirPrefix starts every lab directory's name.
const dirPrefix = "lagscope-lab-"

// Marker is the content of MarkerFile.
type Marker struct {
	PID     int       `json:"pid"`     // the lagscope process that owns the lab
	Created time.Time `json:"created"` // when the lab was made
	Purpose string    `json:"purpose"` // e.g. "lab run apply-bound"
}

// Lab is one lab directory holding clusters. Remove stops nothing: stop the
// clusters first (Lab.Close does both).
type Lab struct {
	Dir      string
	Owner    Owner
	clusters []*Cluster
}

// BaseDir is where lab directories are made: $LAGSCOPE_LAB_DIR or the system
// temporary directory.
func BaseDir() string {
	if d := os.Getenv("LAGSCOPE_LAB_DIR"); d != "" {
		return d
	}
	return os.TempDir()
}

// NewLab makes a fresh lab directory under base ("" = BaseDir()) owned by the
// current user and traversable by owner, and writes its marker.
func NewLab(base, purpose string, owner Owner) (*Lab, error) {
	if base == "" {
		base = BaseDir()
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("make lab base directory: %w", err)
	}
	if err := owner.canTraverse(base); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(base, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("make lab directory under %s: %w (set LAGSCOPE_LAB_DIR to a writable directory)", base, err)
	}
	// 0711: the server account may traverse to its own cluster directory, nobody may list it.
	if err := os.Chmod(dir, 0o711); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("protect lab directory: %w", err)
	}
	m := Marker{PID: os.Getpid(), Created: time.Now().UTC(), Purpose: purpose}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, MarkerFile), b, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("write lab marker: %w", err)
	}
	return &Lab{Dir: dir, Owner: owner}, nil
}

// Close stops every cluster of the lab, all at once and with an immediate
// shutdown (their data is removed next: no shutdown checkpoint), and
// removes the lab directory. It is safe to call more than once.
func (l *Lab) Close() error {
	errs := make([]error, len(l.clusters))
	var wg sync.WaitGroup
	for i, c := range l.clusters {
		wg.Go(func() { errs[i] = c.discard() })
	}
	wg.Wait()
	first := cmp.Or(errs...)
	l.clusters = nil
	if l.Dir != "" {
		if err := os.RemoveAll(l.Dir); err != nil && first == nil {
			first = fmt.Errorf("remove lab directory %s: %w", l.Dir, err)
		}
	}
	return first
}

// Leftover is a lab directory found by FindLeftovers.
type Leftover struct {
	Dir     string
	Marker  Marker
	Alive   bool  // the owning lagscope process still runs
	Servers []int // postmaster pids still running from its clusters
}

// FindLeftovers lists the lab directories under base ("" = BaseDir()).
func FindLeftovers(base string) ([]Leftover, error) {
	if base == "" {
		base = BaseDir()
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", base, err)
	}
	var out []Leftover
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), dirPrefix) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
		if err != nil {
			continue // not ours
		}
		var m Marker
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		lo := Leftover{Dir: dir, Marker: m, Alive: m.PID != os.Getpid() && processAlive(m.PID) && isLagscope(m.PID)}
		lo.Servers = runningPostmasters(dir)
		out = append(out, lo)
	}
	return out, nil
}

// Clean stops the servers of every leftover lab whose owner is gone (or every
// lab, with force) and removes its directory. It returns what it removed.
func Clean(base string, force bool) ([]Leftover, error) {
	los, err := FindLeftovers(base)
	if err != nil {
		return nil, err
	}
	var removed []Leftover
	for _, lo := range los {
		if lo.Alive && !force {
			continue
		}
		for _, pid := range lo.Servers {
			killPostmaster(pid, 10*time.Second)
		}
		if err := os.RemoveAll(lo.Dir); err != nil {
			return removed, fmt.Errorf("remove %s: %w", lo.Dir, err)
		}
		removed = append(removed, lo)
	}
	return removed, nil
}

// runningPostmasters returns the pids in postmaster.pid files below dir whose
// process is alive and is a postgres server for that data directory.
func runningPostmasters(dir string) []int {
	var pids []int
	matches, _ := filepath.Glob(filepath.Join(dir, "*", "data", "postmaster.pid"))
	for _, f := range matches {
		b, err := readSmall(f)
		if err != nil {
			continue
		}
		line, _, _ := strings.Cut(string(b), "\n")
		pid, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil || pid <= 0 {
			continue
		}
		if serverOf(pid, filepath.Dir(f)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// readSmall reads the first 4 kB of a regular file in a directory of the
// server's account, not following a symlink (the account could plant one).
func readSmall(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, 4096))
}
