package calibration

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

// Point is one side of one recording: what /proc measured of its
// replication process, and what the in-server signals measured of its CPUs.
type Point struct {
	Label   string `json:"label"`   // the scenario (from the file name)
	Version string `json:"version"` // the server's version
	Side    string `json:"side"`    // publisher or subscriber
	Role    string `json:"role"`    // walsender or apply
	// CPU and Runq are the process's /proc shares of one core.
	CPU  float64 `json:"cpu_share"`
	Runq float64 `json:"runqueue_share"`
	// HostBusy is the host's busy share (all CPUs).
	HostBusy float64 `json:"host_busy"`
	measure.Contention
}

// namePattern takes the scenario out of a recording's file name:
// diag-<label>-pg<version>-<stamp>.json (lab integration runs) or
// <label>-pg<version>-<origin>.json (the regression set).
var namePattern = regexp.MustCompile(`^(?:diag-)?(.+?)-pg\d`)

// Label returns the scenario a recording's file name names.
func Label(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	if m := namePattern.FindStringSubmatch(base); m != nil {
		return m[1]
	}
	return base
}

// Points returns the recording's points: one per side that had both /proc
// figures of its replication process and CPU bursts.
func Points(label string, rec *sample.Recording) []Point {
	s := measure.Summarise(rec, measure.Filter{})
	var out []Point
	add := func(side, role, version string, p measure.Proc, host float64, c measure.Contention) {
		if p.CPUShare < 0 || !c.Known() {
			return
		}
		out = append(out, Point{Label: label, Version: version, Side: side, Role: role,
			CPU: p.CPUShare, Runq: max(p.RunqueueShare, 0), HostBusy: host, Contention: c})
	}
	add(sample.Publisher, sample.RoleWalsender, rec.Server(sample.PublisherNode).Version, s.Walsender, s.PubHostBusy, s.PubCPU)
	if rec.Server(sample.SubscriberNode) != nil {
		add(sample.Subscriber, sample.RoleApply, rec.Server(sample.SubscriberNode).Version, s.Apply, s.SubHostBusy, s.SubCPU)
	}
	return out
}

// Sort orders points by side, label and version.
func Sort(ps []Point) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Side != b.Side {
			return a.Side < b.Side
		}
		if a.Label != b.Label {
			return a.Label < b.Label
		}
		return a.Version < b.Version
	})
}
