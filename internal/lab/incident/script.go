// Package incident runs a script of incidents on one lab pair, each made
// at a known time, while lagscope's recorder records the pair and live
// diagnoses run in every stretch; then it reads the recording back as
// 'lagscope timeline' and 'lagscope diagnose --from-recording' do and
// checks both against what the lab made (issue 41: "what limited it at
// 03:00").
package incident

import (
	"time"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/units"
)

// Kind is a stretch of the script: a state the lab holds the pair in.
type Kind string

// The stretches. Each fault is made on the running pair and undone at the
// stretch's end; a stretch ends when its backlog has drained.
const (
	// CaughtUp: a light load the subscriber keeps up with.
	CaughtUp Kind = "caught-up"
	// Lock: a subscriber session holds LOCK TABLE hot IN SHARE MODE under
	// a steady load; released after Script.Hold.
	Lock Kind = "lock"
	// Link: the subscription's link slowed to Script.LinkRate under a
	// steady load; its rate restored after Script.Hold.
	Link Kind = "link"
	// Starved: the 16-client load on the publisher's CPU with the
	// subscription enabled: the walsender waits for a CPU.
	Starved Kind = "starved"
	// Stall: the subscription disabled while the 16-client load builds a
	// backlog for Script.Backlog.
	Stall Kind = "stalled"
	// ApplyBound: the subscriber's table has 3 extra indexes and drains
	// Stall's backlog with the publisher idle: the apply worker on its CPU.
	ApplyBound Kind = "apply-bound"
	// Drain follows a lock, a slow link or a starving load once it is
	// undone, until the backlog it left has drained: whatever limits the
	// drain (the apply worker, the walsender decoding) is not the fault's,
	// so no verdict is asked of it (the timeline's incident there is
	// shown).
	Drain Kind = "drain"
)

// Want is the verdict the state of a stretch must get.
func (k Kind) Want() model.VerdictName {
	switch k {
	case Lock:
		return model.SubscriberWaits
	case Link:
		return model.Network
	case Starved:
		return model.WalsenderStarved
	case Stall:
		return model.Stalled
	case ApplyBound:
		return model.SubscriberApplyCPU
	case Drain:
		return ""
	}
	return model.CaughtUp
}

// Plan is the order of the stretches: each fault between caught-up
// stretches (apply-bound's backlog is built by the stalled stretch before
// it; a lock, link or starving load is followed by its Drain).
var Plan = []Kind{CaughtUp, Lock, CaughtUp, Link, CaughtUp, Starved, CaughtUp, Stall, ApplyBound, CaughtUp}

// ExtraIndexes is how many subscriber-only indexes ApplyBound adds.
const ExtraIndexes = 3

// Script is the timing of a run.
type Script struct {
	// Between is the length of each caught-up stretch.
	Between time.Duration
	// Hold is how long the lock, the slow link and the starving load are
	// held (a Drain stretch follows until the backlog has drained).
	Hold time.Duration
	// Backlog is how long the stalled stretch builds apply-bound's backlog.
	Backlog time.Duration
	// Window is the timeline's window: each incident's start and end must
	// be within one of the lab's times. Each stretch starts on a window's
	// edge; Between, Hold and Backlog are whole windows.
	Window time.Duration
	// Live is the length of the live diagnose run in each stretch.
	Live time.Duration
	// SteadyTPS is the lock's and the link's load (pgbench -R, 16
	// clients), a rate the publisher's CPU keeps up with.
	SteadyTPS int
	// LinkRate is the slow link's rate.
	LinkRate units.ByteRate
}

// Short is CI's script: about 5 minutes. Its stretches last whole
// windows: each starts and ends on a window's edge.
func Short() Script {
	return Script{Between: 20 * time.Second, Hold: 20 * time.Second, Backlog: 10 * time.Second, Window: 10 * time.Second,
		Live: 8 * time.Second, SteadyTPS: 1000, LinkRate: 1_000_000}
}

// Long is the run by hand: caught-up stretches of 5 minutes, faults held
// 90 s; about 36 minutes with the drains.
func Long() Script {
	return Script{Between: 5 * time.Minute, Hold: 90 * time.Second, Backlog: 30 * time.Second, Window: 30 * time.Second,
		Live: 10 * time.Second, SteadyTPS: 1000, LinkRate: 1_000_000}
}
