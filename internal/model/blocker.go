package model

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/measure"
)

// Blocker is a session that held a heavyweight lock one of the path's
// apply-side workers waited for (pg_blocking_pids on the subscriber), as
// measure gathers it; the classifier adds how it reads as evidence.
type Blocker struct {
	measure.Blocker
}

// String is the evidence line for the blocker.
func (b Blocker) String() string {
	who := fmt.Sprintf("pid %d", b.PID)
	if b.AppName != "" {
		who += fmt.Sprintf(" (application_name %s", b.AppName)
		if b.User != "" {
			who += ", user " + b.User
		}
		who += ")"
	} else if b.User != "" {
		who += " (user " + b.User + ")"
	}
	waiter := b.Waiter
	if waiter == "" {
		waiter = "apply worker"
	}
	s := fmt.Sprintf("the %s waited for a %s lock held by %s", waiter, b.WaitEvent, who)
	if b.State != "" {
		s += fmt.Sprintf(", %s", b.State)
	}
	if b.XactAgeS > 0 {
		s += fmt.Sprintf(", its transaction open for %s", secs(b.XactAgeS))
	}
	if b.Query != "" {
		s += fmt.Sprintf(", last statement: %s", b.Query)
	}
	return s + fmt.Sprintf(" (seen at %d tick(s))", b.Ticks)
}

// Cause names what the blocker holds and who it is: the path's cause when
// the apply side mostly waits on locks.
func (b Blocker) Cause() string {
	what := map[string]string{
		"relation":      "a lock on a replicated table",
		"transactionid": "row locks on replicated rows (the apply worker waits for its transaction to end)",
		"tuple":         "row locks on replicated rows",
	}[b.WaitEvent]
	if what == "" {
		what = fmt.Sprintf("a %s lock", b.WaitEvent)
	}
	s := fmt.Sprintf("cause: %s held by pid %d", what, b.PID)
	if b.AppName != "" {
		s += " (" + b.AppName + ")"
	}
	if b.State != "" {
		s += ", " + b.State
	}
	if b.XactAgeS > 0 {
		s += fmt.Sprintf(" for %s", secs(b.XactAgeS))
	}
	if b.Query != "" {
		s += ": " + b.Query
	}
	return s
}
