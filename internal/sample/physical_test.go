package sample

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/topology"
)

// physicalWindow is a window of a primary ("db1") and its standby ("r1")
// over two ticks, as RunNodes reads them.
func physicalWindow() *NodeWindow {
	t0 := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	tick := func(at time.Time, sent, replay lsn.LSN) Tick {
		return Tick{At: at,
			Reads: []Read{
				{Node: "db1", OK: true, CurrentLSN: 1000,
					Senders:       []Sender{{PID: 7, AppName: "r1", State: "streaming", Sent: sent, Physical: true, SyncState: "async", Slot: "r1_slot"}},
					PhysicalSlots: []Slot{{Name: "r1_slot", Active: true, ActivePID: 7, RestartLSN: 800, WALStatus: "reserved"}}},
				{Node: "r1", OK: true, CurrentLSN: 0,
					Standby: &StandbyRead{Receive: sent, Replay: replay, Now: at, PauseState: "not paused", StartupPID: 11,
						Receiver:  &WALReceiver{PID: 12, Status: "streaming", Slot: "r1_slot"},
						Settings:  StandbySettings{MaxStreamingDelayMS: -1},
						Conflicts: map[string]int64{"snapshot": 0},
						Holders: []ConflictHolder{{Session: Session{PID: 20, User: "app"}, Holds: holdsSnapshot,
							BackendStart: "2026-12-05T07:59:00.000001Z", Query: "SELECT $1"}}}},
			},
			Procs: []ProcStat{{Side: "db1", PID: 7, Role: RoleWalsender, CPUNs: 1}, {Side: "r1", PID: 11, Role: RoleStartup, CPUNs: 2},
				{Side: "r1", PID: 12, Role: RoleReceiver, CPUNs: 3}},
		}
	}
	return &NodeWindow{Start: t0, End: t0.Add(2 * time.Second),
		Nodes: []Node{
			{Node: topology.Node{ID: "db1", Role: topology.Primary}, Server: Server{Version: "18.4", Major: 18, CPUs: 2}},
			{Node: topology.Node{ID: "r1", Role: topology.Standby}, Server: Server{Version: "18.4", Major: 18, CPUs: 2}},
		},
		Ticks:  []Tick{tick(t0, 900, 500), tick(t0.Add(time.Second), 950, 600)},
		Probes: []Probe{{At: t0, Side: "r1", Waits: []Wait{{PID: 11, Type: "IPC", Event: "RecoveryConflictSnapshot"}}}, {At: t0, Side: "db1", Waits: []Wait{}}},
	}
}

// TestAPhysicalPathIsCutOutAndRoundTrips checks the physical path's
// recording: cut out of a window under the names primary and standby,
// written as version 12 with its path, read back unchanged, its topology
// and its copy without /proc; and the primary alone, the standby alone.
func TestAPhysicalPathIsCutOutAndRoundTrips(t *testing.T) {
	w := physicalWindow()
	for _, c := range []struct {
		name             string
		primary, standby topology.NodeID
		nodes            int
		paths            int
		procs            int
	}{
		{"a primary and its standby", "db1", "r1", 2, 1, 3},
		{"a standby alone", "", "r1", 1, 0, 2},
		{"a primary alone", "db1", "", 1, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec, err := w.Physical(c.primary, c.standby)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Nodes) != c.nodes || len(rec.Ticks[0].Procs) != c.procs {
				t.Fatalf("nodes %v, procs %v; want %d nodes, %d procs", rec.Nodes, rec.Ticks[0].Procs, c.nodes, c.procs)
			}
			if c.standby != "" {
				sb := rec.Ticks[1].Read(StandbyNode)
				if sb.Standby == nil || sb.Standby.StartupPID != 11 || rec.Probes[0].Side != string(StandbyNode) {
					t.Errorf("standby read %+v, probe %+v; want r1's under %q", sb, rec.Probes[0], StandbyNode)
				}
			}
			b, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			var f struct {
				Version int             `json:"version"`
				Paths   []topology.Path `json:"paths"`
			}
			json.Unmarshal(b, &f)
			if f.Version != 12 || len(f.Paths) != c.paths {
				t.Errorf("written as version %d with paths %v, want 12 and %d path(s)", f.Version, f.Paths, c.paths)
			}
			back, err := ReadRecording(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(recordingJSON(t, rec), recordingJSON(t, back)) {
				t.Errorf("the recording changed through its file:\n%s\n%s", recordingJSON(t, rec), recordingJSON(t, back))
			}
			top := back.Topology()
			if len(top.Nodes) != c.nodes || len(top.Paths) != c.paths || top.Validate() != nil {
				t.Errorf("topology %+v, want %d nodes and %d path(s)", top, c.nodes, c.paths)
			}
			if c.paths == 1 && (top.Paths[0].Source != PrimaryNode || top.Paths[0].Consumer != StandbyNode) {
				t.Errorf("path %+v, want primary -> standby", top.Paths[0])
			}
			np := back.WithoutProc()
			if len(np.Ticks[0].Procs) != 0 || np.Nodes[0].ProcUnavailable != NoProcCause || np.Ticks[0].Read(np.Nodes[0].ID).OK != true {
				t.Errorf("without /proc: %+v", np.Ticks[0])
			}
			if back.ProbeHz() == 0 {
				t.Errorf("no probe rate for the path's first node")
			}
		})
	}
	if _, err := w.Physical("", ""); err == nil {
		t.Errorf("a physical path of no node cut without an error")
	}
	if _, err := w.Physical("r1", ""); err == nil || !strings.Contains(err.Error(), `no primary node "r1"`) {
		t.Errorf("a standby cut as the primary: %v", err)
	}
}

// TestPhysicalNodesAreRefusedWhereTheyCannotBe checks the one-line errors
// for files whose physical nodes or reads make no path: a standby in a
// version 11 file, a primary beside a publisher, two standbys, a standby's
// read on the primary node, physical slots on the standby, a subscriber
// alone; and that a primary or a standby alone reads.
func TestPhysicalNodesAreRefusedWhereTheyCannotBe(t *testing.T) {
	node := func(id, role string) string {
		return `{"id":"` + id + `","role":"` + role + `","version":"18.4","major":18}`
	}
	cases := []struct {
		name    string
		version int
		nodes   string
		read    string
		want    string // "" = reads
	}{
		{"a primary and a standby read", 12, node("primary", "primary") + "," + node("standby", "standby"), `{"node":"standby","ok":true,"standby":{"now":"2026-01-01T00:00:00Z","settings":{"recovery_min_apply_delay_ms":0,"max_standby_streaming_delay_ms":30000,"max_standby_archive_delay_ms":30000,"hot_standby_feedback":false}}}`, ""},
		{"a standby alone reads", 12, node("standby", "standby"), `{"node":"standby","ok":true}`, ""},
		{"a primary alone reads", 12, node("primary", "primary"), `{"node":"primary","ok":true,"senders":[{"pid":1,"application_name":"s","state":"streaming","physical":true}],"physical_slots":[{"name":"s","database":"","active":true}]}`, ""},
		{"a standby in a version 11 file is refused", 11, node("standby", "standby"), `{"node":"standby","ok":true}`, `node "standby" (standby)`},
		{"a primary beside a publisher is refused", 12, node("publisher", "publisher") + "," + node("primary", "primary"), `{"node":"publisher","ok":true}`, `node "primary" (primary)`},
		{"two standbys are refused", 12, node("standby", "standby") + "," + node("standby", "standby"), `{"node":"standby","ok":true}`, `node "standby" (standby)`},
		{"a standby under another id is refused", 12, node("r1", "standby"), `{"node":"r1","ok":true}`, `node "r1" (standby)`},
		{"a subscriber alone is refused", 12, node("subscriber", "subscriber"), `{"node":"subscriber","ok":true}`, `without its publisher`},
		{"a standby's read on the primary node is refused", 12, node("primary", "primary") + "," + node("standby", "standby"), `{"node":"primary","ok":true,"standby":{"now":"2026-01-01T00:00:00Z","settings":{"recovery_min_apply_delay_ms":0,"max_standby_streaming_delay_ms":0,"max_standby_archive_delay_ms":0,"hot_standby_feedback":false}}}`, "other role"},
		{"physical slots on the standby are refused", 12, node("primary", "primary") + "," + node("standby", "standby"), `{"node":"standby","ok":true,"physical_slots":[{"name":"s","database":"","active":true}]}`, "other role"},
		{"a publisher's slots on the primary are refused", 12, node("primary", "primary"), `{"node":"primary","ok":true,"slots":[{"name":"s","database":"d","active":true}]}`, "other role"},
		{"a physical slot named against the rule is refused", 12, node("primary", "primary"), `{"node":"primary","ok":true,"physical_slots":[{"name":"S'x","database":"","active":true}]}`, "physical_slots[0].name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := `{"version":` + strconv.Itoa(c.version) + `,"start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:01Z","nodes":[` + c.nodes +
				`],"ticks":[{"at":"2026-01-01T00:00:00Z","reads":[` + c.read + `]},{"at":"2026-01-01T00:00:01Z","reads":[` + c.read + `]}],"probes":[]}`
			_, err := ReadRecording(strings.NewReader(doc))
			switch {
			case c.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
				t.Errorf("error %v, want one line saying %q", err, c.want)
			}
		})
	}
}
