package sample

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/topology"
)

// corpus is where the recordings of real lab runs are kept (the
// classifier's cases), every version from 1 to 9.
const corpus = "../classify/testdata"

// readFile reads the recording at path with ReadRecording.
func readFile(t *testing.T, path string) *Recording {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := ReadRecording(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rec
}

// recordingJSON is the recording's nodes, reads and the rest, every field
// in one encoding: what two recordings are compared by.
func recordingJSON(t *testing.T, r *Recording) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// byVersion is the first recording of each version among paths.
func byVersion(t *testing.T, paths []string) map[int]string {
	out := map[int]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Version int }
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if _, ok := out[v.Version]; !ok {
			out[v.Version] = p
		}
	}
	return out
}

// TestEveryOlderVersionReadsAsNodes reads a recording of each version
// before 11 (the corpus' for 1 to 9; testdata/recording-v10.json, made from
// a version 9 run with a blocker's backend_start added, for 10) and checks
// that it reads as a publisher node and a subscriber node whose per-node
// reads hold what the old side-prefixed fields held.
func TestEveryOlderVersionReadsAsNodes(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(corpus, "*.json"))
	files := byVersion(t, append(paths, "testdata/recording-v10.json"))
	for v := 1; v < NodesVersion; v++ {
		path, ok := files[v]
		if !ok {
			t.Errorf("no recording of version %d to read", v)
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			rec := readFile(t, path)
			if rec.Version != v {
				t.Errorf("version %d, want %d", rec.Version, v)
			}
			nodes := rec.Nodes
			if len(nodes) != 2 || nodes[0].Role != topology.Publisher || nodes[1].Role != topology.Subscriber ||
				nodes[0].Version == "" || nodes[1].Version == "" {
				t.Fatalf("nodes %+v, want a publisher and a subscriber with their versions", nodes)
			}
			var raw struct {
				Ticks []map[string]json.RawMessage `json:"ticks"`
			}
			b, _ := os.ReadFile(path)
			json.Unmarshal(b, &raw)
			for i := range rec.Ticks {
				pub, sub := rec.Ticks[i].Read(PublisherNode), rec.Ticks[i].Read(SubscriberNode)
				if want := string(raw.Ticks[i]["pub_ok"]) == "true"; pub.OK != want {
					t.Errorf("tick %d: publisher ok %v, the file says %s", i, pub.OK, raw.Ticks[i]["pub_ok"])
				}
				if want := string(raw.Ticks[i]["sub_ok"]) == "true"; sub.OK != want {
					t.Errorf("tick %d: subscriber ok %v, the file says %s", i, sub.OK, raw.Ticks[i]["sub_ok"])
				}
				if _, had := raw.Ticks[i]["slots"]; had != (pub.Slots != nil) {
					t.Errorf("tick %d: the publisher's slots %v, the file has them: %v", i, pub.Slots, had)
				}
				if _, had := raw.Ticks[i]["subs"]; had != (sub.Subs != nil) {
					t.Errorf("tick %d: the subscriber's subscriptions %v, the file has them: %v", i, sub.Subs, had)
				}
			}
		})
	}
}

// TestEveryRecordingRoundTripsAsNodes writes every recording of the corpus
// in the shape of version 11 and reads it back: nothing is lost (the same
// recording, field by field), the file lists nodes with roles, and its
// ticks hold reads keyed by node instead of side-prefixed fields.
func TestEveryRecordingRoundTripsAsNodes(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(corpus, "*.json"))
	paths = append(paths, "testdata/recording-v1.json", "testdata/recording-v10.json")
	if len(paths) < 100 {
		t.Fatalf("%d recordings in %s, want the corpus", len(paths), corpus)
	}
	for _, path := range paths {
		old := readFile(t, path)
		b, err := json.Marshal(old)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var f struct {
			Version        int                          `json:"version"`
			SampledVersion int                          `json:"sampled_version"`
			Nodes          []topology.Node              `json:"nodes"`
			Ticks          []map[string]json.RawMessage `json:"ticks"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		want := 1
		if old.Server(SubscriberNode) != nil {
			want = 2
		}
		// A recording of this version says no other it was sampled in.
		sampled := old.Version
		if sampled == RecordingVersion {
			sampled = 0
		}
		if f.Version != RecordingVersion || f.SampledVersion != sampled || len(f.Nodes) != want || f.Nodes[0].Role != topology.Publisher {
			t.Errorf("%s written as version %d (sampled %d) with nodes %v; want version %d (sampled %d), %d nodes, a publisher first",
				path, f.Version, f.SampledVersion, f.Nodes, RecordingVersion, sampled, want)
		}
		for _, k := range []string{"pub_ok", "sub_host", "pub_burst_ms", "sub_current_lsn", "slots", "subs"} {
			if _, ok := f.Ticks[0][k]; ok {
				t.Errorf("%s: a tick still written with %s", path, k)
			}
		}
		back, err := ReadRecording(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s read back: %v", path, err)
		}
		if !bytes.Equal(recordingJSON(t, old), recordingJSON(t, back)) {
			t.Errorf("%s: the recording changed through version %d", path, RecordingVersion)
		}
	}
}

// TestANewRecordingKeepsItsVersion checks that a recording sampled by this
// version is written without a sampled version, and reads back as it.
func TestANewRecordingKeepsItsVersion(t *testing.T) {
	rec := readFile(t, "testdata/recording-v10.json")
	rec.Version = RecordingVersion
	b, _ := json.Marshal(rec)
	if strings.Contains(string(b), "sampled_version") {
		t.Errorf("a recording of this version written with a sampled version: %.200s", b)
	}
	back, err := ReadRecording(bytes.NewReader(b))
	if err != nil || back.Version != RecordingVersion {
		t.Fatalf("read back as version %v (%v), want %d", back, err, RecordingVersion)
	}
}

// TestNodesThisVersionCannotJudge checks that a version 11 file whose
// nodes are not a pair is refused with a one-line error naming the node.
func TestNodesThisVersionCannotJudge(t *testing.T) {
	tick := `{"at":"2026-01-01T00:00:00Z","reads":[{"node":"publisher","ok":true}]}`
	cases := []struct {
		name  string
		nodes string
		reads string
		want  string
	}{
		{"a standby beside a publisher is refused", `{"id":"publisher","role":"publisher","version":"16.1","major":16},{"id":"s1","role":"standby","version":"16.1","major":16}`, "", `node "s1" (standby)`},
		{"a second publisher is not either", `{"id":"publisher","role":"publisher","version":"16.1","major":16},{"id":"publisher","role":"publisher","version":"16.1","major":16}`, "", `node "publisher" (publisher)`},
		{"an unknown role is refused", `{"id":"publisher","role":"witness","version":"16.1","major":16}`, "", `role "witness"`},
		{"a read of a node not listed is refused", `{"id":"publisher","role":"publisher","version":"16.1","major":16}`,
			`,{"at":"2026-01-01T00:00:01Z","reads":[{"node":"subscriber","ok":true}]}`, `node "subscriber"`},
		{"a subscriber's read in the publisher's is refused", `{"id":"publisher","role":"publisher","version":"16.1","major":16}`,
			`,{"at":"2026-01-01T00:00:01Z","reads":[{"node":"publisher","ok":true,"subs":[{"name":"s","slot":"s","enabled":true}]}]}`, "other role"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reads := c.reads
			if reads == "" {
				reads = "," + tick
			}
			doc := `{"version":11,"start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:01Z","nodes":[` + c.nodes + `],"ticks":[` + tick + reads + `],"probes":[]}`
			_, err := ReadRecording(strings.NewReader(doc))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line saying %q", err, c.want)
			}
		})
	}
}

// TestTopologyOfARecording checks the pair's nodes and path, in and
// without a subscriber.
func TestTopologyOfARecording(t *testing.T) {
	rec := readFile(t, "testdata/recording-v10.json")
	if top := rec.Topology(); len(top.Paths) != 1 || top.Paths[0].Source != PublisherNode || top.Validate() != nil {
		t.Errorf("topology %+v, want the pair's path", top)
	}
	if rec.Server(SubscriberNode) != &rec.Nodes[1].Server || rec.Server("standby") != nil {
		t.Errorf("Server gives the wrong servers")
	}
	rec.Nodes = rec.Nodes[:1]
	ids := []string{}
	for _, n := range rec.Nodes {
		ids = append(ids, string(n.ID))
	}
	sort.Strings(ids)
	if strings.Join(ids, ",") != "publisher" || len(rec.Topology().Paths) != 0 {
		t.Errorf("without a subscriber: nodes %v, paths %v; want the publisher alone", ids, rec.Topology().Paths)
	}
}
