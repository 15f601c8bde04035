package proc

import (
	"fmt"
	"math"
	"time"

	"github.com/prometheus/procfs"
)

// HostSample is one reading of the host's cumulative CPU time from the "cpu"
// line of /proc/stat, summed over all CPUs. Compare two samples with HostBusy.
type HostSample struct {
	// Busy is the time CPUs spent on anything but idling: user, nice, system,
	// irq, softirq and steal. Idle and iowait are not busy.
	Busy time.Duration
	// Total is Busy plus idle and iowait: all CPU time since boot, summed over
	// CPUs (about CPUs times the uptime). Guest time is already inside user and
	// nice, so it is not added again.
	Total time.Duration
	// CPUs is the number of per-CPU lines ("cpu0", "cpu1", ...): the CPUs online
	// when the sample was read.
	CPUs int
}

// Host reads the host's CPU counters from <root>/stat.
func (fs FS) Host() (HostSample, error) {
	st, err := fs.proc.Stat()
	if err != nil {
		return HostSample{}, fmt.Errorf("read %s/stat: %w", fs.root, err)
	}
	return newHostSample(st), nil
}

// newHostSample converts procfs's parsed /proc/stat into a HostSample.
func newHostSample(st procfs.Stat) HostSample {
	c := st.CPUTotal
	busy := seconds(c.User) + seconds(c.Nice) + seconds(c.System) +
		seconds(c.IRQ) + seconds(c.SoftIRQ) + seconds(c.Steal)
	return HostSample{
		Busy:  busy,
		Total: busy + seconds(c.Idle) + seconds(c.Iowait),
		CPUs:  len(st.CPU),
	}
}

// seconds converts procfs's float seconds (ticks divided by USER_HZ) back into
// a Duration, rounded to the clock tick it came from.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s*ticksPerSecond)) * tick
}
