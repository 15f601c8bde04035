package topology

import (
	"reflect"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	pub, sub := Node{ID: "pub", Role: Publisher}, Node{ID: "sub", Role: Subscriber}
	cases := []struct {
		name string
		top  Topology
		want string // "" = valid
	}{
		{"a publisher with two subscribers is valid", Topology{Nodes: []Node{pub, sub, {ID: "sub2", Role: Subscriber}},
			Paths: []Path{{Source: "pub", Consumer: "sub"}, {Source: "pub", Consumer: "sub2"}}}, ""},
		{"a publisher alone is valid", Topology{Nodes: []Node{pub}}, ""},
		{"a node without an id is not", Topology{Nodes: []Node{{Role: Standby}}}, "no id"},
		{"an unknown role is not", Topology{Nodes: []Node{{ID: "x", Role: "witness"}}}, `role "witness"`},
		{"a node listed twice is not", Topology{Nodes: []Node{pub, pub}}, "twice"},
		{"a path to a node not listed is not", Topology{Nodes: []Node{pub}, Paths: []Path{{Source: "pub", Consumer: "sub"}}}, `no node "sub"`},
		{"a path from a node to itself is not", Topology{Nodes: []Node{pub}, Paths: []Path{{Source: "pub", Consumer: "pub"}}}, "itself"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.top.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestPair(t *testing.T) {
	cases := []struct {
		name       string
		subscriber bool
		want       Topology
	}{
		{"a pair is a publisher, a subscriber and the path between them", true, Topology{
			Nodes: []Node{{ID: "publisher", Role: Publisher}, {ID: "subscriber", Role: Subscriber}},
			Paths: []Path{{Source: "publisher", Consumer: "subscriber"}}}},
		{"without a subscriber it is the publisher alone", false, Topology{Nodes: []Node{{ID: "publisher", Role: Publisher}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Pair(c.subscriber)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Pair(%v) = %+v, want %+v", c.subscriber, got, c.want)
			}
			if err := got.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSourcesAreDistinct(t *testing.T) {
	top := Topology{Nodes: []Node{{ID: "p", Role: Publisher}, {ID: "a", Role: Subscriber}, {ID: "b", Role: Subscriber}, {ID: "q", Role: Publisher}},
		Paths: []Path{{Source: "p", Consumer: "a"}, {Source: "p", Consumer: "b"}, {Source: "q", Consumer: "a"}}}
	if got, want := top.Sources(), []NodeID{"p", "q"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Sources() = %v, want %v", got, want)
	}
	if got := top.WithRole(Subscriber); len(got) != 2 || got[0].ID != "a" || got[1].ID != "b" {
		t.Errorf("WithRole(Subscriber) = %v, want a and b", got)
	}
	if n, ok := top.Node("q"); !ok || n.Role != Publisher {
		t.Errorf("Node(q) = %v, %v; want the publisher q", n, ok)
	}
}
