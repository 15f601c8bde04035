package sample

import (
	"context"
	"slices"
	"testing"

	"github.com/lagscope/lagscope/internal/topology"
)

// TestRoleSources checks the explicit list of readers per role: the
// publisher and the subscriber each have their positions, every
// best-effort source has the name its failures are counted under, and a
// role lagscope does not sample yet has no entry.
func TestRoleSources(t *testing.T) {
	known := map[string]bool{SourceBlockers: true, SourceCopyProgress: true, SourceCPUBurst: true, SourceWALDisk: true, SourceApplyWork: true, SourceActive: true,
		SourcePrefetch: true, SourceStartupIO: true, SourceHolders: true, SourceSenders: true}
	cases := []struct {
		name     string
		role     topology.Role
		listed   bool
		bestEff  []string
		besideOS []string
	}{
		{"a publisher reads its positions, its active backends, and its WAL disk where its /proc is", topology.Publisher, true, []string{SourceActive}, []string{SourceWALDisk}},
		{"a subscriber reads its positions, then its blockers, copies, apply work and active backends", topology.Subscriber, true,
			[]string{SourceBlockers, SourceCopyProgress, SourceApplyWork, SourceActive}, nil},
		{"a primary reads its positions (physical walsenders and slots), its active backends, and its WAL disk where its /proc is", topology.Primary, true,
			[]string{SourceActive}, []string{SourceWALDisk}},
		{"a standby reads its positions, then its own walsenders, the prefetcher, the startup process's I/O, the conflict holders and its active backends", topology.Standby, true,
			[]string{SourceSenders, SourcePrefetch, SourceStartupIO, SourceHolders, SourceActive}, nil},
		{"a consumer is not sampled", topology.Consumer, false, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pos, srcs, onHost, ok := sourcesOf(c.role)
			if ok != c.listed || ok && pos == nil {
				t.Fatalf("listed %v (positions %v), want %v", ok, pos != nil, c.listed)
			}
			names := func(ss []source) []string {
				var out []string
				for _, s := range ss {
					if !known[s.Name] || s.Read == nil {
						t.Errorf("source %q: unknown name or no reader", s.Name)
					}
					out = append(out, s.Name)
				}
				return out
			}
			if got := names(srcs); !slices.Equal(got, c.bestEff) {
				t.Errorf("best-effort sources %v, want %v", got, c.bestEff)
			}
			if got := names(onHost); !slices.Equal(got, c.besideOS) {
				t.Errorf("sources beside /proc %v, want %v", got, c.besideOS)
			}
		})
	}
	seen := map[topology.Role]bool{}
	for _, rs := range roleSources {
		if seen[rs.Role] {
			t.Errorf("role %s listed twice", rs.Role)
		}
		seen[rs.Role] = true
	}
}

// TestANodeOfARoleWithoutSourcesDoesNotAnswer checks that a session of a
// role roleSources does not list reads nothing and says so, without
// connecting.
func TestANodeOfARoleWithoutSourcesDoesNotAnswer(t *testing.T) {
	s := newSession(topology.Node{ID: "c1", Role: topology.Consumer}, nil, context.Background())
	var tk Tick
	if rd := s.read(context.Background(), &tk, 0, false, &NodeWindow{}, Options{}); rd.OK || rd.Node != "c1" {
		t.Errorf("read %+v, want node c1 not answering", rd)
	}
}
