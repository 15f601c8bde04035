package model

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

// withCascade adds to every standby read of rec a walsender of its own
// feeding lab_cascade: sent what the standby received less lagSent, the
// cascade flushing lagFlush behind that and replaying lagReplay behind
// its flush.
func withCascade(rec *sample.Recording, lagSent, lagFlush, lagReplay int64) {
	for i := range rec.Ticks {
		r := rec.Ticks[i].Edit(sample.StandbyNode)
		if !r.OK || r.Standby == nil {
			continue
		}
		sent := r.Standby.Receive - lsn.LSN(lagSent)
		flush := sent - lsn.LSN(lagFlush)
		r.Senders = []sample.Sender{{PID: 9000, AppName: "lab_cascade", State: "streaming", Sent: sent, Write: flush, Flush: flush,
			Replay: flush - lsn.LSN(lagReplay), Physical: true, SyncState: "async"}}
	}
}

// TestCascadeHopsOnTheCascadeRecordings places a cascade on the recorded
// cascade scenario (its standby behind a 1 MB/s link): keeping up with
// the standby, it is as far behind the primary as the standby's first hop
// leaves it, and that hop limits at the stage the verdict names (the
// link, whose WAL waits unsent behind a full socket); lagging 512 MB in its
// own replay, the second hop limits at replay.
func TestCascadeHopsOnTheCascadeRecordings(t *testing.T) {
	for _, path := range []string{"../classify/testdata/physical/cascade-pg15-diag.json", "../classify/testdata/physical/cascade-pg18-diag.json"} {
		t.Run(path, func(t *testing.T) {
			rec := load(t, path)
			withCascade(rec, 0, 0, 4096)
			in := PhysicalInputs(rec)
			if len(in) != 1 {
				t.Fatalf("%d inputs, want 1", len(in))
			}
			p := in[0].Path
			v := JudgePhysical(in[0])
			if v.Name != Network || v.Limit != StageLink {
				t.Fatalf("verdict %s limit %s, want %s at %s", v.Name, v.Limit, Network, StageLink)
			}
			cs := Cascades(p, v.Limit)
			if len(cs) != 1 {
				t.Fatalf("%d cascades, want 1", len(cs))
			}
			c := cs[0]
			first := p.Unsent + p.InFlight
			if len(c.Hops) != 2 || c.Hops[0].Bytes != first || c.Hops[1].Bytes != 4096 {
				t.Fatalf("hops %+v, want the first hop's %d bytes then 4096", c.Hops, first)
			}
			if b, ok := c.BehindPrimary.Get(); !ok || b != first+4096 || first < 4<<20 {
				t.Errorf("behind the primary %v, want %d (the first hop >= 4 MB)", c.BehindPrimary, first+4096)
			}
			if c.LimitHop != 0 || c.Hops[0].Limit != StageLink || c.Hops[1].Limit != StageReplay {
				t.Errorf("limit hop %d at %s (second hop's %s), want the first at the link", c.LimitHop, c.Hops[0].Limit, c.Hops[1].Limit)
			}
			if s, ok := c.Seconds.Get(); !ok || s <= 0 {
				t.Errorf("seconds %v, want the bytes over the primary's rate", c.Seconds)
			}
			if !strings.Contains(c.Text, "primary -> lab_standby") || !strings.Contains(c.Text, "hop limits, at stage link") {
				t.Errorf("text %q", c.Text)
			}

			rec = load(t, path)
			withCascade(rec, 0, 0, 512<<20)
			p = measure.PhysicalOf(rec, measure.StandbyKey{})
			c = Cascades(p, v.Limit)[0]
			if c.LimitHop != 1 || c.Hops[1].Limit != StageReplay || c.Hops[1].Bytes != 512<<20 {
				t.Errorf("limit hop %d, hops %+v; want the second, at replay, 512 MB", c.LimitHop, c.Hops)
			}
			if !strings.Contains(c.Text, "lab_standby -> lab_cascade hop limits, at stage startup (the startup process of lab_cascade: diagnose --standby on it") {
				t.Errorf("text %q", c.Text)
			}
		})
	}
}

// TestCascadeWithoutThePrimary: with the middle standby alone, the
// cascade's lag behind the primary is not known and only its own hop is
// listed; a cascade within IdleLag of the standby keeps up.
func TestCascadeWithoutThePrimary(t *testing.T) {
	p := measure.Physical{Standby: "mid", HasStandby: true, Unsent: -1, InFlight: -1, Unreplayed: 0,
		Downstreams: []measure.Downstream{{Name: "c\x1b[31m", Received: 1 << 30,
			Sender: sample.Sender{AppName: "c", Sent: 1 << 30, Flush: 1 << 30, Replay: 1<<30 - 100, Physical: true}}}}
	cs := Cascades(p, "")
	if len(cs) != 1 {
		t.Fatalf("%d cascades", len(cs))
	}
	c := cs[0]
	if _, ok := c.BehindPrimary.Get(); ok || len(c.Hops) != 1 || c.LimitHop != -1 {
		t.Errorf("cascade %+v: want one hop, nothing known behind the primary, no limit", c)
	}
	if strings.Contains(c.Text, "\x1b") || !strings.Contains(c.Text, "not known (no --primary)") || !strings.Contains(c.Text, "keeps up") {
		t.Errorf("text %q", c.Text)
	}
}

// TestCascadeOnTheRecordedRun reads the cascade the 15.18 and 18.4 runs
// recorded from the standby's own walsender (lab_cascade 152 B / 16 B
// behind the standby, the standby 147 MB / 185 MB behind the primary
// through its 1 MB/s link): the first hop limits, at the link.
func TestCascadeOnTheRecordedRun(t *testing.T) {
	for _, v := range []string{"15", "18"} {
		t.Run(v, func(t *testing.T) {
			cascadeOnTheRecordedRun(t, "../classify/testdata/physical/cascade-pg"+v+"-diag.json")
		})
	}
}

func cascadeOnTheRecordedRun(t *testing.T, path string) {
	rec := load(t, path)
	in := PhysicalInputs(rec)
	v := JudgePhysical(in[0])
	cs := Cascades(in[0].Path, v.Limit)
	if len(cs) != 1 || cs[0].Standby != "lab_cascade" || len(cs[0].Hops) != 2 {
		t.Fatalf("cascades %+v, want lab_cascade over two hops", cs)
	}
	c := cs[0]
	if c.LimitHop != 0 || c.Hops[0].Limit != StageLink || c.Hops[0].Bytes < 4<<20 || c.Hops[1].Bytes > IdleLag {
		t.Errorf("%s: want the first hop (>= 4 MB) limiting at the link, the second within IdleLag", c.Text)
	}
	if l, ok := c.ReplayLagS.Get(); !ok || l > 1 {
		t.Errorf("replay_lag relative to the standby %v, want under a second", c.ReplayLagS)
	}
}
