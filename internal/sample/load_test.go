package sample

import (
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/proc"
)

func TestLoadDeltaCountsWhatEachProcessUsedSinceTheFirstReading(t *testing.T) {
	since := time.Unix(1000, 0)
	old := since.Add(-time.Hour)
	from := map[int]proc.ProcCPU{
		10: {PID: 10, Comm: "yes", CPU: 2 * time.Second, Start: old},
		11: {PID: 11, Comm: "idle", CPU: time.Second, Start: old},
		12: {PID: 12, Comm: "gone", CPU: time.Second, Start: old},
		13: {PID: 13, Comm: "reused", CPU: 5 * time.Second, Start: old},
	}
	cur := []proc.ProcCPU{
		{PID: 10, Comm: "yes", CPU: 7 * time.Second, Start: old},
		{PID: 11, Comm: "idle", CPU: time.Second, Start: old},
		{PID: 13, Comm: "sh", CPU: 3 * time.Second, Start: since.Add(2 * time.Second)},
		{PID: 14, Comm: "unread", CPU: 9 * time.Second, Start: old},
	}
	got := loadDelta(from, cur, since)
	want := []LoadProc{{PID: 10, Comm: "yes", CPUNs: int64(5 * time.Second)}, {PID: 13, Comm: "sh", CPUNs: int64(3 * time.Second)}}
	if len(got) != len(want) {
		t.Fatalf("loadDelta = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("loadDelta[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestWithoutProcDropsTheHostLoadKeepsTheActiveBackends(t *testing.T) {
	rec := &Recording{Nodes: []Node{{}}, Ticks: []Tick{{Reads: []Read{{Node: PublisherNode, OK: true,
		Active: []ActiveBackend{{PID: 1, App: "a"}}, Load: &HostLoad{CPUs: "0"}}}}}}
	out := rec.WithoutProc()
	rd := out.Ticks[0].Reads[0]
	if rd.Load != nil || len(rd.Active) != 1 {
		t.Errorf("without /proc: load %+v, active %+v; want no load, the active backend kept", rd.Load, rd.Active)
	}
	if rec.Ticks[0].Reads[0].Load == nil {
		t.Error("WithoutProc changed the original recording")
	}
}
