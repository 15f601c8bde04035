package sample

import (
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/topology"
)

// TestAPairIsCutOutOfAWindowOfSeveralNodes checks that a publisher read
// once for two subscribers gives each pair the same publisher reads and
// only its own subscriber's, with every side renamed to the pair's.
func TestAPairIsCutOutOfAWindowOfSeveralNodes(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	w := &NodeWindow{Start: t0, End: t0.Add(time.Second),
		Nodes: []Node{
			{Node: topology.Node{ID: "db1", Role: topology.Publisher}, Server: Server{Version: "16.4", Major: 16}},
			{Node: topology.Node{ID: "eu", Role: topology.Subscriber}, Server: Server{Version: "17.1", Major: 17}},
			{Node: topology.Node{ID: "us", Role: topology.Subscriber}, Server: Server{Version: "18.0", Major: 18}},
		},
		Ticks: []Tick{{At: t0,
			Reads: []Read{{Node: "db1", OK: true, CurrentLSN: 100, Slots: []Slot{{Name: "eu"}, {Name: "us"}}},
				{Node: "eu", OK: true, Subs: []Sub{{Name: "eu", Slot: "eu"}}}, {Node: "us", OK: false}},
			Procs:      []ProcStat{{Side: "db1", PID: 1, Role: RoleWalsender}, {Side: "eu", PID: 2, Role: RoleApply}, {Side: "us", PID: 3, Role: RoleApply}},
			ReadErrors: []ReadError{{Side: "us", Source: SourceBlockers}}}},
		Probes: []Probe{{At: t0, Side: "db1"}, {At: t0, Side: "us"}},
		Gaps:   []Gap{{Side: "us", From: t0, To: t0.Add(time.Second)}},
	}
	cases := []struct {
		name      string
		sub       topology.NodeID
		subOK     bool
		subMajor  int
		procs     int
		probes    int
		gaps      int
		readErrs  int
		wantError string
	}{
		{"the eu pair has the publisher's reads and eu's", "eu", true, 17, 2, 1, 0, 0, ""},
		{"the us pair has the publisher's reads and us's, its gap and failed read", "us", false, 18, 2, 2, 1, 1, ""},
		{"the publisher alone has no subscriber", "", false, 0, 1, 1, 0, 0, ""},
		{"a subscriber the window did not read is an error", "asia", false, 0, 0, 0, 0, 0, `no subscriber node "asia"`},
		{"a node of another role is an error", "db1", false, 0, 0, 0, 0, 0, `no subscriber node "db1"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, err := w.Pair("db1", c.sub)
			if c.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantError) {
					t.Fatalf("error %v, want %q", err, c.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tk := rec.Ticks[0]
			pub, srv := tk.Read(PublisherNode), rec.Server(PublisherNode)
			if !pub.OK || pub.CurrentLSN != 100 || len(pub.Slots) != 2 || srv.Major != 16 {
				t.Errorf("publisher %+v / %+v, want db1's reads", srv, pub)
			}
			subMajor := 0
			if sub := rec.Server(SubscriberNode); sub != nil {
				subMajor = sub.Major
			}
			if ok := tk.Read(SubscriberNode).OK; ok != c.subOK || subMajor != c.subMajor {
				t.Errorf("subscriber ok %v major %d, want %v %d", ok, subMajor, c.subOK, c.subMajor)
			}
			if len(tk.Procs) != c.procs || len(rec.Probes) != c.probes || len(rec.Gaps) != c.gaps || len(tk.ReadErrors) != c.readErrs {
				t.Errorf("procs %d probes %d gaps %d read errors %d, want %d %d %d %d",
					len(tk.Procs), len(rec.Probes), len(rec.Gaps), len(tk.ReadErrors), c.procs, c.probes, c.gaps, c.readErrs)
			}
			for _, p := range rec.Probes {
				if p.Side != Publisher && p.Side != Subscriber {
					t.Errorf("probe side %q, want the pair's names", p.Side)
				}
			}
			if err := rec.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}
