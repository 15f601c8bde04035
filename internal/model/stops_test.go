package model

import (
	"testing"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

// A slot no walsender serves is a stop, unless the subscription's apply
// worker is held on a lock another session holds: its walsender then
// exited after wal_sender_timeout for want of a reply, and the lock is the
// cause the rules below name.
func TestAnInactiveSlotIsAStopUnlessTheApplyWorkerIsHeldOnALock(t *testing.T) {
	in := Input{SlotFound: true, HasSubscriber: true, Subscription: "sub", SubEnabled: true, ApplyWorker: true}
	if cause, _ := configStall(in); cause == "" {
		t.Error("an inactive slot with nothing moving: want a stop")
	}
	in.Blockers = []Blocker{{measure.Blocker{Session: sample.Session{PID: 42}}}}
	if cause, _ := configStall(in); cause != "" {
		t.Errorf("the apply worker held on pid 42's lock: want no stop, got %q", cause)
	}
}
