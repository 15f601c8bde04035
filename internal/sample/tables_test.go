package sample

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/pg"
)

func TestApplyPIDs(t *testing.T) {
	cases := []struct {
		name string
		keys map[int]procKey
		want []int32
	}{
		{"leader and parallel apply workers are read, in pid order",
			map[int]procKey{30: {role: "parallel apply"}, 10: {role: "apply"}}, []int32{10, 30}},
		{"a tablesync worker is not an apply worker",
			map[int]procKey{20: {role: "tablesync"}, 10: {role: "apply"}}, []int32{10}},
		{"a publisher's walsenders are none",
			map[int]procKey{5: {role: "walsender"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := applyPIDs(c.keys); !slices.Equal(got, c.want) {
				t.Errorf("applyPIDs = %v, want %v", got, c.want)
			}
		})
	}
}

// The statements carry lagscope's marker and read only the subscribed
// tables (their leaves) and backends that exist.
func TestApplyWorkStatements(t *testing.T) {
	for _, q := range []string{applyTablesSQL, backendWALSQL} {
		if !strings.HasPrefix(q, pg.Marker) {
			t.Errorf("no marker: %s", q)
		}
	}
	if !strings.Contains(applyTablesSQL, "pg_subscription_rel") || !strings.Contains(applyTablesSQL, "WHERE NOT partitioned") {
		t.Errorf("not restricted to the subscribed tables' leaves: %s", applyTablesSQL)
	}
	// pg_partition_tree locks every partition it lists, at every tick.
	if strings.Contains(applyTablesSQL, "pg_partition_tree") || !strings.Contains(applyTablesSQL, "pg_inherits") {
		t.Errorf("the leaves are not read from pg_inherits: %s", applyTablesSQL)
	}
	if !strings.Contains(backendWALSQL, "wal_records IS NOT NULL") {
		t.Errorf("an ended backend's NULL row would read as zeros: %s", backendWALSQL)
	}
}

// A tick read before version 9 has no Applied (not "nothing applied"); one
// read with no subscribed table has an empty list, and both round trip.
func TestAppliedRoundTrips(t *testing.T) {
	var old legacyTick
	if err := json.Unmarshal([]byte(`{"at":"2026-11-01T00:00:00Z","pub_ok":true,"sub_ok":true}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Applied != nil {
		t.Errorf("a version 8 tick reads with Applied %+v, want nil (not read)", old.Applied)
	}
	tk := Read{Node: SubscriberNode, Applied: &ApplyWork{Tables: []TableStat{}}}
	b, _ := json.Marshal(tk)
	var back Read
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Applied == nil || back.Applied.Tables == nil {
		t.Errorf("%s reads back as %+v: want read, no table", b, back.Applied)
	}
}
