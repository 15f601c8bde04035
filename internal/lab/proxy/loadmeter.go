package proxy

import (
	"os"
	"time"

	"github.com/lagscope/lagscope/internal/proc"
)

// loadMeter reads the machine's and this process's CPU counters, so a bench
// can tell a quiet run from one that competed with other work. Without /proc
// it reads nothing and the load stays unknown (zero).
type loadMeter struct {
	fs proc.FS
	ok bool
}

// loadSample is one reading of a loadMeter.
type loadSample struct {
	at   time.Time
	host proc.HostSample
	self proc.ProcSample
	ok   bool
}

func newLoadMeter() loadMeter {
	fs, err := proc.NewFS("")
	return loadMeter{fs: fs, ok: err == nil}
}

func (m loadMeter) read() loadSample {
	if !m.ok {
		return loadSample{}
	}
	h, err := m.fs.Host()
	if err != nil {
		return loadSample{}
	}
	p, err := m.fs.Process(os.Getpid())
	if err != nil {
		return loadSample{}
	}
	return loadSample{at: time.Now(), host: h, self: p, ok: true}
}

// loadBetween returns the average number of busy CPUs on the machine and the
// CPUs this process used between two samples; zeros when either is missing.
func loadBetween(a, b loadSample) (hostCores, selfCores float64) {
	wall := b.at.Sub(a.at)
	if !a.ok || !b.ok || wall <= 0 {
		return 0, 0
	}
	hostCores = proc.HostBusy(a.host, b.host) * float64(b.host.CPUs)
	selfCores = (b.self.CPU - a.self.CPU).Seconds() / wall.Seconds()
	return hostCores, selfCores
}
