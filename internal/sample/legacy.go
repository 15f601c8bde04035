package sample

import (
	"encoding/json"
	"time"

	"github.com/lagscope/lagscope/internal/lsn"
)

// legacy is a recording in the shape of versions 1 to 10: the pair's two
// servers, and ticks with side-prefixed fields. It is only read (a
// recording is written as RecordingVersion) and turned into nodes and
// per-node reads at once (recording).
type legacy struct {
	Version    int             `json:"version"`
	Start      time.Time       `json:"start"`
	End        time.Time       `json:"end"`
	Publisher  Server          `json:"publisher"`
	Subscriber *Server         `json:"subscriber,omitempty"`
	Ticks      []legacyTick    `json:"ticks"`
	Probes     []Probe         `json:"probes"`
	Gaps       []Gap           `json:"gaps,omitempty"`
	Setup      json.RawMessage `json:"setup,omitempty"`
	SetupError string          `json:"setup_error,omitempty"`
}

// legacyTick is a tick of versions 1 to 10: the publisher's and the
// subscriber's reads side by side (pub_*, sub_*, and the role sources at
// the top).
type legacyTick struct {
	At         time.Time      `json:"at"`
	CurrentLSN lsn.LSN        `json:"current_lsn,omitempty"`
	Slots      []Slot         `json:"slots,omitempty"`
	Senders    []Sender       `json:"senders,omitempty"`
	Subs       []Sub          `json:"subs,omitempty"`
	Procs      []ProcStat     `json:"procs,omitempty"`
	PubHost    *HostStat      `json:"pub_host,omitempty"`
	SubHost    *HostStat      `json:"sub_host,omitempty"`
	PubWALDisk *DiskStat      `json:"pub_wal_disk,omitempty"`
	PubOK      bool           `json:"pub_ok"`
	SubOK      bool           `json:"sub_ok"`
	Blockers   []Blocker      `json:"blockers,omitempty"`
	Copies     []CopyProgress `json:"copies,omitempty"`
	PubBurst   []float64      `json:"pub_burst_ms,omitempty"`
	SubBurst   []float64      `json:"sub_burst_ms,omitempty"`
	SubLSN     lsn.LSN        `json:"sub_current_lsn,omitempty"`
	Xacts      []OpenXact     `json:"pub_xacts,omitempty"`
	Applied    *ApplyWork     `json:"sub_applied,omitempty"`
	ReadErrors []ReadError    `json:"read_errors,omitempty"`
}

// recording is the legacy recording as nodes and per-node reads: the
// publisher's read at every tick, the subscriber's where it is observed
// (or, without it, where the tick holds something of it).
func (l *legacy) recording() Recording {
	r := Recording{Version: l.Version, Start: l.Start, End: l.End, Nodes: PairNodes(l.Publisher, l.Subscriber),
		Probes: l.Probes, Gaps: l.Gaps, Setup: l.Setup, SetupError: l.SetupError}
	if l.Ticks != nil {
		r.Ticks = make([]Tick, len(l.Ticks))
	}
	for i, t := range l.Ticks {
		pub := Read{Node: PublisherNode, OK: t.PubOK, CurrentLSN: t.CurrentLSN, Host: t.PubHost, WALDisk: t.PubWALDisk, Burst: t.PubBurst,
			Slots: t.Slots, Senders: t.Senders, Xacts: t.Xacts}
		sub := Read{Node: SubscriberNode, OK: t.SubOK, CurrentLSN: t.SubLSN, Host: t.SubHost, Burst: t.SubBurst,
			Subs: t.Subs, Blockers: t.Blockers, Copies: t.Copies, Applied: t.Applied}
		r.Ticks[i] = Tick{At: t.At, Reads: []Read{pub}, Procs: t.Procs, ReadErrors: t.ReadErrors}
		if l.Subscriber != nil || !sub.empty() {
			r.Ticks[i].Reads = append(r.Ticks[i].Reads, sub)
		}
	}
	return r
}
