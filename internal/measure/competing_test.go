package measure

import (
	"math"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/sample"
)

func TestCompetingGroupsBackendsAndNamesOtherProcesses(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	active := []sample.ActiveBackend{{PID: 20, App: "pgbench", User: "bob"}, {PID: 21, App: "pgbench", User: "bob"}, {PID: 7, App: "walsender?", User: "x"}}
	ticks := []sample.Tick{
		{At: at(0), Reads: []sample.Read{{Node: sample.PublisherNode, OK: true, Active: active}}},
		{At: at(10), Reads: []sample.Read{{Node: sample.PublisherNode, OK: true, Active: active[:1],
			Load: &sample.HostLoad{Since: at(0), CPUs: "0", Procs: []sample.LoadProc{
				{PID: 20, Comm: "postgres", CPUNs: 4e9}, {PID: 21, Comm: "postgres", CPUNs: 2e9},
				{PID: 7, Comm: "postgres", CPUNs: 3e9}, {PID: 30, Comm: "yes", CPUNs: 5e9}, {PID: 31, Comm: "sshd", CPUNs: 1e8}}}}}},
	}
	c := competing(ticks, sample.PublisherNode, map[int]bool{7: true})
	if c == nil || c.CPUs != "0" || len(c.Backends) != 1 {
		t.Fatalf("competing = %+v, want one group on CPU 0", c)
	}
	b := c.Backends[0]
	if b.App != "pgbench" || b.Count != 2 || math.Abs(b.Active-1.5) > 1e-9 || math.Abs(b.CPUShare-0.6) > 1e-9 {
		t.Errorf("backends %+v, want pgbench/bob: 2 backends, 1.5 active, 0.6 of a core", b)
	}
	if len(c.Others) != 1 || c.Others[0].Comm != "yes" || math.Abs(c.Others[0].CPUShare-0.5) > 1e-9 {
		t.Errorf("others %+v, want yes at 0.5 (sshd under MinCompetingShare, the walsender left out)", c.Others)
	}
	if got := c.CPUShare(); math.Abs(got-1.1) > 1e-9 {
		t.Errorf("CPUShare = %v, want 1.1", got)
	}
	if competing(ticks[:0], sample.PublisherNode, nil) != nil {
		t.Error("no reads: want nil (not read)")
	}
}
