package measure

import (
	"reflect"
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
)

func TestRoles(t *testing.T) {
	pub := func(pid int) Backend { return Backend{sample.Publisher, pid} }
	sub := func(pid int) Backend { return Backend{sample.Subscriber, pid} }
	two := []sample.Tick{
		{Reads: []sample.Read{{Node: sample.PublisherNode, Slots: []sample.Slot{{Name: "a", ActivePID: 10}, {Name: "b", ActivePID: 11}, {Name: "idle"}}}, {Node: sample.SubscriberNode, Subs: []sample.Sub{{Slot: "a", WorkerPID: 20, ParallelWorkers: []int{21}, SyncWorkers: []int{22}}, {Slot: "b", WorkerPID: 30}}}}},
		// 10 serves a's slot on the publisher and applies b's on the
		// subscriber; 22 ended its sync and its pid now leads b.
		{Reads: []sample.Read{{Node: sample.PublisherNode, Slots: []sample.Slot{{Name: "a", ActivePID: 10}}}, {Node: sample.SubscriberNode, Subs: []sample.Sub{{Slot: "b", WorkerPID: 22, ParallelWorkers: []int{10}}}}}},
	}
	for _, c := range []struct {
		name string
		f    Filter
		want map[Backend]BackendRole
	}{
		{"an empty filter gives every replication backend seen, a pid reused by a later process taking its last role", Filter{},
			map[Backend]BackendRole{
				pub(10): {sample.RoleWalsender, "a"}, pub(11): {sample.RoleWalsender, "b"},
				sub(20): {sample.RoleApply, "a"}, sub(21): {sample.RoleParallel, "a"}, sub(22): {sample.RoleApply, "b"},
				sub(30): {sample.RoleApply, "b"}, sub(10): {sample.RoleParallel, "b"}}},
		{"a filter keeps the backends of its slots only, on both servers", Filter{Slots: map[string]bool{"a": true}},
			map[Backend]BackendRole{pub(10): {sample.RoleWalsender, "a"},
				sub(20): {sample.RoleApply, "a"}, sub(21): {sample.RoleParallel, "a"}, sub(22): {sample.RoleTablesync, "a"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Roles(two, c.f); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %v\nwant %v", got, c.want)
			}
		})
	}
}
