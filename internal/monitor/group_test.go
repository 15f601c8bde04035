package monitor

import (
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

func pairOf(name, pub, sub string, step time.Duration) Options {
	return Options{Pair: name, Step: step, Window: 30 * time.Second, Diagnose: diagnose.Options{Publisher: pub, Subscriber: sub, ProbeHz: 10}}
}

// TestPairsOfOnePublisherShareItsSampler checks which pairs are sampled
// together: those of one publisher sampled alike, whatever their
// subscribers.
func TestPairsOfOnePublisherShareItsSampler(t *testing.T) {
	eu, us := pairOf("eu", "host=db1", "host=eu", 10*time.Second), pairOf("us", "host=db1", "host=us", 10*time.Second)
	alone := pairOf("alone", "host=db1", "", 10*time.Second)
	other := pairOf("other", "host=db2", "host=eu", 10*time.Second)
	slower := pairOf("slower", "host=db1", "host=asia", 20*time.Second)
	noProc := pairOf("noproc", "host=db1", "host=asia", 10*time.Second)
	noProc.Diagnose.NoProc = true
	replica := Options{Pair: "replica", Step: 10 * time.Second, Window: 30 * time.Second, Diagnose: diagnose.Options{Standby: "host=r1", ProbeHz: 10}}
	replica2 := Options{Pair: "replica2", Step: 10 * time.Second, Window: 30 * time.Second, Diagnose: diagnose.Options{Standby: "host=r2", ProbeHz: 10}}
	cases := []struct {
		name  string
		pairs []Options
		want  [][]string
	}{
		{"two subscribers of one publisher are one group", []Options{eu, us}, [][]string{{"eu", "us"}}},
		{"the publisher watched alone joins them", []Options{eu, alone, us}, [][]string{{"eu", "alone", "us"}}},
		{"another publisher is another group", []Options{eu, other, us}, [][]string{{"eu", "us"}, {"other"}}},
		{"another step is another sampler", []Options{eu, slower}, [][]string{{"eu"}, {"slower"}}},
		{"another use of /proc is another sampler", []Options{eu, noProc}, [][]string{{"eu"}, {"noproc"}}},
		{"a physical standby's path is sampled alone", []Options{eu, replica, replica2}, [][]string{{"eu"}, {"replica"}, {"replica2"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Groups(c.pairs)
			if len(got) != len(c.want) {
				t.Fatalf("%d groups, want %d", len(got), len(c.want))
			}
			for i, g := range got {
				var names []string
				for _, p := range g {
					names = append(names, p.Pair)
				}
				if len(names) != len(c.want[i]) {
					t.Fatalf("group %d is %v, want %v", i, names, c.want[i])
				}
				for j := range names {
					if names[j] != c.want[i][j] {
						t.Errorf("group %d is %v, want %v", i, names, c.want[i])
					}
				}
			}
		})
	}
}

// TestAGroupReadsEachServerOnce checks the nodes a group samples: its
// publisher once, and each distinct subscriber once, however many pairs
// name it.
func TestAGroupReadsEachServerOnce(t *testing.T) {
	step := 10 * time.Second
	g := newGroup([]Options{pairOf("eu", "host=db1", "host=eu", step), pairOf("eu-again", "host=db1", "host=eu", step),
		pairOf("alone", "host=db1", "", step), pairOf("us", "host=db1", "host=us", step)})
	want := []topology.Node{{ID: sample.PublisherNode, Role: topology.Publisher},
		{ID: "subscriber-1", Role: topology.Subscriber}, {ID: "subscriber-2", Role: topology.Subscriber}}
	if len(g.nodes) != len(want) {
		t.Fatalf("nodes %v, want %v", g.nodes, want)
	}
	for i := range want {
		if g.nodes[i] != want[i] {
			t.Errorf("node %d is %v, want %v", i, g.nodes[i], want[i])
		}
	}
	if subs := []topology.NodeID{"subscriber-1", "subscriber-1", "", "subscriber-2"}; len(g.subOf) != 4 ||
		g.subOf[0] != subs[0] || g.subOf[1] != subs[1] || g.subOf[2] != subs[2] || g.subOf[3] != subs[3] {
		t.Errorf("subscriber of each pair %v, want %v", g.subOf, subs)
	}
	if err := (topology.Topology{Nodes: g.nodes}).Validate(); err != nil {
		t.Error(err)
	}
	if g.dsn["subscriber-2"] != "host=us" || g.dsn[sample.PublisherNode] != "host=db1" {
		t.Errorf("connection strings %v", g.dsn)
	}
}
