package diagnose

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// physicalRecording is a primary writing gen bytes/s and a standby
// replaying rep bytes/s from 200 MB behind, its startup process waiting
// on startupEv (on a CPU when "", 97% of a core), the walsender named appName; edit
// changes the standby's read at tick i.
func physicalRecording(gen, rep int64, startupEv, appName string, edit func(i int, s *sample.StandbyRead)) *sample.Recording {
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	rec := &sample.Recording{Version: sample.RecordingVersion, Start: t0, End: t0.Add(10 * time.Second),
		Nodes: []sample.Node{
			{Node: topology.Node{ID: sample.PrimaryNode, Role: topology.Primary}, Server: sample.Server{Version: "18.4", Major: 18, ProbeHz: 10}},
			{Node: topology.Node{ID: sample.StandbyNode, Role: topology.Standby}, Server: sample.Server{Version: "18.4", Major: 18, ProbeHz: 10}},
		}}
	base := lsn.LSN(1 << 32)
	cpu := int64(97e7) // ns a second: on a CPU, or waiting
	if startupEv != "" {
		cpu = 1e7
	}
	for i := int64(0); i < 10; i++ {
		at := t0.Add(time.Duration(i) * time.Second)
		cur := base + lsn.LSN(i*gen)
		replay := base - 200e6 + lsn.LSN(i*rep)
		sb := &sample.StandbyRead{Receive: cur, Replay: replay, Now: at, PauseState: "not paused", StartupPID: 200,
			Receiver: &sample.WALReceiver{PID: 201, Status: "streaming", Written: cur, Flushed: cur, LatestEnd: cur},
			Settings: sample.StandbySettings{MaxStreamingDelayMS: 30000}}
		if edit != nil {
			edit(int(i), sb)
		}
		rec.Ticks = append(rec.Ticks, sample.Tick{At: at, Reads: []sample.Read{
			{Node: sample.PrimaryNode, OK: true, CurrentLSN: cur,
				Senders: []sample.Sender{{PID: 100, AppName: appName, State: "streaming", Sent: cur, Write: cur, Flush: cur, Replay: replay, Physical: true, SyncState: "async"}}},
			{Node: sample.StandbyNode, OK: true, Standby: sb}},
			Procs: []sample.ProcStat{{Side: string(sample.StandbyNode), PID: 200, Role: sample.RoleStartup, CPUNs: i * cpu, RunqNs: i * 1e7}}})
		for k := 0; k < 10; k++ {
			typ := ""
			if startupEv != "" {
				typ = "IPC"
			}
			pat := at.Add(time.Duration(k) * 100 * time.Millisecond)
			rec.Probes = append(rec.Probes,
				sample.Probe{At: pat, Side: string(sample.StandbyNode), Waits: []sample.Wait{{PID: 200, Type: typ, Event: startupEv}, {PID: 201, Type: "Activity", Event: "WalReceiverMain"}}},
				sample.Probe{At: pat, Side: string(sample.PrimaryNode), Waits: []sample.Wait{{PID: 100, Type: "Activity", Event: "WalSenderWaitForWAL"}}})
		}
	}
	return rec
}

func renderAll(t *testing.T, r report.Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, render := range report.Renderers {
		var b bytes.Buffer
		if err := render(&b, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b.String()
	}
	return out
}

func TestAPhysicalReportRendersInEveryFormatAndReadsBack(t *testing.T) {
	rec := physicalRecording(1e6, 3e6, "", "replica\x1b[31m1", nil)
	if !IsPhysical(rec) {
		t.Fatal("a primary and a standby are a physical recording")
	}
	r := BuildPhysical(rec, 0)
	if len(r.Physical) != 1 || r.Physical[0].Name != "replay-cpu" || !r.Finding() {
		t.Fatalf("%d paths: %+v", len(r.Physical), r.Physical)
	}
	out := renderAll(t, r)
	text := out["text"]
	flat := strings.Join(strings.Fields(text), " ")
	for _, want := range []string{"primary PostgreSQL 18.4, standby PostgreSQL 18.4", "VERDICT replay-cpu", "limit: startup",
		"lag 182 MB behind, about 182 s", "182 MB received not replayed", "catching up in about 91 s: 182 MB behind / (replayed 3.0 MB/s - generated 1.0 MB/s = 2.0 MB/s net) (model: both rates stay as in the window)", "startup (limit)"} {
		if !strings.Contains(flat, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for name, o := range out {
		if strings.Contains(o, "\x1b") {
			t.Errorf("%s writes the standby's name's escape sequence raw", name)
		}
	}
	back, err := report.Read(strings.NewReader(out["json"]))
	if err != nil {
		t.Fatal(err)
	}
	if again := renderAll(t, back); again["text"] != text {
		t.Errorf("the JSON read back renders another text:\n%s\nwant:\n%s", again["text"], text)
	}
}

func TestAnIdlePrimarysStandbyReportsZeroLagWhateverTheReplayTimestampSays(t *testing.T) {
	old := time.Date(2026, 12, 5, 9, 50, 0, 0, time.UTC)
	rec := physicalRecording(0, 0, "RecoveryWalStream", "s1", func(i int, s *sample.StandbyRead) {
		s.Replay = s.Receive
		s.ReplayedXactAt = &old
	})
	r := BuildPhysical(rec, 0)
	p := r.Physical[0]
	if b, _ := p.LagBytes.Get(); p.Name != "caught-up" || b != 0 || p.CatchUp != "" {
		t.Fatalf("%s, %d bytes, %q", p.Name, b, p.CatchUp)
	}
	if text := strings.Join(strings.Fields(renderAll(t, r)["text"]), " "); !strings.Contains(text, "lag 0 B behind, about 0.0 s") || !strings.Contains(text, "now() - pg_last_xact_replay_timestamp() reads 10 min, but nothing is left to replay") {
		t.Errorf("text:\n%s", text)
	}
}

// A cascaded standby given with the real primary: it streams from another
// standby on a slot the primary's only walsender does not hold. The path
// is the standby's own, and a note names where it streams from, escaped
// (the host and the slot are other people's names).
func TestACascadedStandbyGivenWithThePrimaryIsNotGivenItsWalsender(t *testing.T) {
	rec := physicalRecording(1e6, 30e6, "", "hop1", func(_ int, s *sample.StandbyRead) {
		s.Receiver.Slot, s.Receiver.SenderHost, s.Receiver.SenderPort = "hop2\n", "standby-1", 5433
	})
	for i := range rec.Ticks {
		rec.Ticks[i].Reads[0].Senders[0].Slot = "hop1"
	}
	r := BuildPhysical(rec, 10)
	if len(r.Physical) != 1 || r.Physical[0].Sender != nil {
		t.Fatalf("paths %+v: want the standby's own, without the primary's walsender", r.Physical)
	}
	note := strings.Join(r.Notes, "\n")
	if !strings.Contains(note, `streams from standby-1:5433 on slot hop2\n`) {
		t.Errorf("notes %q: want where the standby streams from, escaped", r.Notes)
	}
	// On the walsender's slot there is nothing to say.
	for i := range rec.Ticks {
		rec.Ticks[i].Reads[1].Standby.Receiver.Slot = "hop1"
	}
	if r := BuildPhysical(rec, 10); r.Physical[0].Sender == nil || strings.Contains(strings.Join(r.Notes, "\n"), "no walsender") {
		t.Errorf("the first hop: sender %v, notes %q", r.Physical[0].Sender, r.Notes)
	}
}
