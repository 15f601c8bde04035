package lab

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/sleep"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/proc"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
)

// ResultVersion is bumped when Result's JSON shape changes.
const ResultVersion = 1

// Result is one scenario run's measurement, in seed 000's terms.
type Result struct {
	Version       int          `json:"version"`
	Scenario      ScenarioName `json:"scenario"`
	Layout        string       `json:"layout"`
	ServerVersion string       `json:"server_version"`
	Rows          int          `json:"rows"`
	PubCPUs       string       `json:"pub_cpus"`
	SubCPUs       string       `json:"sub_cpus"`
	WindowS       float64      `json:"window_s"`
	// ConsumedMBps is the advance of the slowest slot's confirmed_flush_lsn,
	// GeneratedMBps that of pg_current_wal_lsn(), in MB (1e6 bytes) of WAL/s.
	ConsumedMBps  float64 `json:"consumed_mb_per_s"`
	GeneratedMBps float64 `json:"generated_mb_per_s"`
	// DecodedMBps is the advance of the slowest walsender's sent_lsn.
	DecodedMBps float64 `json:"decoded_mb_per_s"`
	// DrainedEarly says the backlog was gone before the window ended.
	DrainedEarly bool              `json:"drained_early,omitempty"`
	Walsender    measure.Proc      `json:"walsender"`
	Apply        measure.Proc      `json:"apply"`
	Lag          measure.Lag       `json:"lag"`
	HostBusy     float64           `json:"host_busy"`
	Link         *LinkResult       `json:"link,omitempty"`
	DataMatches  *bool             `json:"data_matches,omitempty"`
	DataDetail   string            `json:"data_detail,omitempty"`
	Notes        []string          `json:"notes,omitempty"`
	Recording    *sample.Recording `json:"-"`
	// During holds what RunOptions.During returned (e.g. a diagnosis).
	During any `json:"diagnosis,omitempty"`
	// Inspected holds what RunOptions.Inspect returned.
	Inspected any `json:"-"`
	// Standby is the lab's measurement of the publisher's physical
	// standby, in a physical scenario (nil = none): the logical fields
	// then stay zero.
	Standby *StandbyResult `json:"standby,omitempty"`
}

// LinkResult is what the proxy measured over the window.
type LinkResult struct {
	ConfiguredMBps float64 `json:"configured_mb_per_s"`
	MeasuredMBps   float64 `json:"measured_mb_per_s"` // publisher -> subscriber
	Error          float64 `json:"error"`             // measured/configured - 1
}

func (r *Result) fill(rec *sample.Recording, p *Pair, sc Recipe, o RunOptions) {
	r.Version = ResultVersion
	r.Recording = rec
	r.ServerVersion = rec.Server(sample.PublisherNode).Version
	r.Rows = o.Pair.Rows
	r.PubCPUs = proc.FormatCPUList(o.Pair.PubCPUs)
	r.SubCPUs = proc.FormatCPUList(o.Pair.SubCPUs)
	s := measure.Summarise(rec, measure.Filter{})
	r.WindowS = s.WindowS
	r.ConsumedMBps = units.MBPerSecond(s.Consumed)
	r.GeneratedMBps = units.MBPerSecond(s.Generated)
	r.DecodedMBps = units.MBPerSecond(s.Decoded)
	r.Walsender, r.Apply, r.Lag, r.HostBusy = s.Walsender, s.Apply, s.Lag, s.PubHostBusy
	r.DrainedEarly = rec.End.Sub(rec.Start) < o.Duration-o.Tick && len(rec.Ticks) > 0 && sc.UntilBelow > 0 && drained(rec.Ticks[len(rec.Ticks)-1], sc.UntilBelow)
	if r.DrainedEarly {
		r.Notes = append(r.Notes, fmt.Sprintf("the backlog drained after %.0f s, before the %s window ended: use a longer --backlog-time", s.WindowS, o.Duration))
	}
	if len(o.Pair.SubCPUs) < len(p.Subscriptions) {
		r.Notes = append(r.Notes, fmt.Sprintf("%d apply workers share %d subscriber CPU(s): they cannot scale as in seed 000 (4 threads per side)", len(p.Subscriptions), len(o.Pair.SubCPUs)))
	}
}

type linkSnap struct {
	at    time.Time
	bytes uint64
}

func snapLink(p *Pair) linkSnap {
	return linkSnap{at: time.Now(), bytes: p.Proxy.Stats().Downstream}
}

func linkResult(a, b linkSnap, rate units.ByteRate) *LinkResult {
	sec := b.at.Sub(a.at).Seconds()
	lr := &LinkResult{ConfiguredMBps: units.MBPerSecond(float64(rate))}
	if sec > 0 {
		lr.MeasuredMBps = units.MBPerSecond(float64(b.bytes-a.bytes) / sec)
	}
	if lr.ConfiguredMBps > 0 {
		lr.Error = lr.MeasuredMBps/lr.ConfiguredMBps - 1
	}
	return lr
}

// verify waits for the subscriber (or the standby: to) to hold the
// publisher's data (row count and sum(k) equal) and records the outcome.
// The publisher's side is read again at every comparison: a killed
// pgbench's last statements still commit after it is gone (on CI, 16
// in-flight updates of 20 rows each, k +320, committed after a single
// read of the publisher, and the standby that had replayed them was taken
// for one that lagged).
func (r *Result) verify(ctx context.Context, p *Pair, to *cluster.Cluster, timeout time.Duration, log io.Writer) {
	fmt.Fprintf(log, "lab: draining the rest of the backlog and comparing data (up to %s)\n", timeout)
	deadline := time.Now().Add(timeout)
	const q = "SELECT count(*) * 1000000007 + coalesce(sum(k), 0) FROM hot"
	var got, want int64
	for i := 0; ; i++ {
		prev := want
		var err error
		if want, err = Query[int64](ctx, p.Pub.ConnString(Database), q); err != nil {
			r.DataDetail = "could not read the publisher's data: " + err.Error()
			return
		}
		if i > 0 && want != prev {
			fmt.Fprintf(log, "lab: the publisher's data changed after the load stopped (checksum %d, then %d)\n", prev, want)
		}
		got, err = Query[int64](ctx, to.ConnString(Database), q)
		if err == nil && got == want {
			ok := true
			r.DataMatches = &ok
			r.DataDetail = "row count and sum(k) equal on both sides"
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		sleep.For(ctx, time.Second)
	}
	ok := false
	r.DataMatches = &ok
	r.DataDetail = fmt.Sprintf("%s still differs after %s (checksum %d vs %d)", to.Name, timeout, got, want)
}
