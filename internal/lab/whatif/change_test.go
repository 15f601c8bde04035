package whatif

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/lab"
)

// The control is found by name for the states it measures, changes nothing
// on the pair, and is listed with the changes.
func TestControlIsAChangeThatChangesNothing(t *testing.T) {
	ch, scen, err := LookupChange("none", "apply-text")
	if err != nil || scen != "apply-text" || ch.Name != Control.Name {
		t.Fatalf("LookupChange(none, apply-text) = %q, %q, %v", ch.Name, scen, err)
	}
	if err := ch.Apply(context.Background(), nil, nil); err != nil {
		t.Errorf("the control's Apply: %v", err)
	}
	if _, _, err := LookupChange("none", "lost-slot"); err == nil {
		t.Error("the control was accepted for lost-slot, which has no drain to measure")
	}
	if !slices.Contains(ChangeNames(), "none") {
		t.Errorf("ChangeNames() = %v, without none", ChangeNames())
	}
}

// A link of a given rate is found by its rate, in the form the report
// names it, for the network scenario only; a bare link=RATE or a rate that
// does not parse is refused.
func TestALinkOfAGivenRateIsAChange(t *testing.T) {
	ch, scen, err := LookupChange("link=64Mbit/s", "")
	if err != nil || scen != "network" || ch.Name != "link=8MB/s" || ch.LinkTo != 8_000_000 {
		t.Fatalf("LookupChange(link=64Mbit/s) = %q (%d), %q, %v: want link=8MB/s from network", ch.Name, ch.LinkTo, scen, err)
	}
	if err := ch.Apply(context.Background(), &lab.Pair{}, nil); err == nil || !strings.Contains(err.Error(), "no rate-limited link") {
		t.Errorf("on a pair without a link: %v", err)
	}
	for _, bad := range []string{"link=RATE", "link=fast/s", "link=0MB/s"} {
		if _, _, err := LookupChange(bad, ""); err == nil {
			t.Errorf("LookupChange(%s) was accepted", bad)
		}
	}
	if _, _, err := LookupChange("link=8MB/s", "apply-bound"); err == nil {
		t.Error("link=8MB/s was accepted for apply-bound, which has no link")
	}
}

// The per-row cost states are measured by the change that removes their
// object: the constraint by drop-constraint (its default state), the GIN
// expression index by drop-extra-indexes; a change is refused from a state
// whose cost it does not remove.
func TestThePerRowCostStatesHaveTheirChanges(t *testing.T) {
	for _, tc := range []struct{ change, scenario, want string }{
		{"drop-constraint", "", "check-constraint"},
		{"drop-extra-indexes", "expression-index", "expression-index"},
		{"drop-extra-indexes", "", "apply-bound"},
	} {
		if _, scen, err := LookupChange(tc.change, tc.scenario); err != nil || scen != tc.want {
			t.Errorf("LookupChange(%s, %q) = %q, %v: want %s", tc.change, tc.scenario, scen, err, tc.want)
		}
	}
	for _, bad := range [][2]string{{"drop-constraint", "expression-index"}, {"drop-extra-indexes", "check-constraint"}, {"disable-trigger", "generated-column"}} {
		if _, _, err := LookupChange(bad[0], bad[1]); err == nil {
			t.Errorf("LookupChange(%s, %s) was accepted", bad[0], bad[1])
		}
	}
}

// resume-replay is measured from replay-cpu's paused backlog: the state's
// release of replay is left out (the change releases it), and the change
// is physical.
func TestResumeReplayLeavesTheReleaseToTheChange(t *testing.T) {
	ch, scen, err := LookupChange("resume-replay", "")
	if err != nil || scen != "replay-cpu" || !ch.Physical || ch.During == nil {
		t.Fatalf("LookupChange(resume-replay) = %q, %q, %v", ch.Name, scen, err)
	}
	r := ch.For(lab.Recipe{Steps: []lab.Step{{Name: "standby"}, lab.ReleaseReplay, {Name: "after"}}})
	var names []string
	for _, s := range r.Steps {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "standby,after" {
		t.Errorf("steps %v: want the release left out", names)
	}
	if _, _, err := LookupChange("resume-replay", "apply-bound"); err == nil {
		t.Error("resume-replay was accepted for apply-bound")
	}
}

// link=2x is made on the logical network pair by default and on the
// physical standby-link's standby when that state is asked for; listed once.
func TestTheLinkDoubledIsMadeOnALogicalOrAPhysicalLink(t *testing.T) {
	ch, scen, err := LookupChange("link=2x", "")
	if err != nil || scen != "network" || ch.Physical {
		t.Fatalf("LookupChange(link=2x) = %q physical %v, %q, %v: want the logical change from network", ch.Name, ch.Physical, scen, err)
	}
	ch, scen, err = LookupChange("link=2x", "standby-link")
	if err != nil || scen != "standby-link" || !ch.Physical {
		t.Fatalf("LookupChange(link=2x, standby-link) = %q physical %v, %q, %v", ch.Name, ch.Physical, scen, err)
	}
	if err := ch.Apply(context.Background(), &lab.Pair{}, nil); err == nil || !strings.Contains(err.Error(), "no rate-limited link") {
		t.Errorf("on a pair without a standby: %v", err)
	}
	_, _, err = LookupChange("link=2x", "replay-cpu")
	if err == nil || !strings.Contains(err.Error(), "network or standby-link") {
		t.Errorf("link=2x from replay-cpu: %v", err)
	}
	n := 0
	for _, c := range ChangeNames() {
		if c == "link=2x" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("ChangeNames lists link=2x %d times", n)
	}
}

// cancel-conflict-holder is measured from replay-cpu's paused backlog too:
// the release is left to the first window (which holds replay by the lab's
// snapshot holder), and ending a holder the standby does not have is an
// error, not a silent no-op.
func TestCancelConflictHolderEndsTheLabsHolder(t *testing.T) {
	ch, scen, err := LookupChange("cancel-conflict-holder", "")
	if err != nil || scen != "replay-cpu" || !ch.Physical || ch.During == nil {
		t.Fatalf("LookupChange(cancel-conflict-holder) = %q, %q, %v", ch.Name, scen, err)
	}
	r := ch.For(lab.Recipe{Steps: []lab.Step{{Name: "standby"}, lab.ReleaseReplay}})
	if slices.ContainsFunc(r.Steps, func(s lab.Step) bool { return s.Name == lab.ReleaseReplay.Name }) {
		t.Errorf("steps %v keep the release", r.Steps)
	}
	if err := ch.Apply(context.Background(), &lab.Pair{}, nil); err == nil || !strings.Contains(err.Error(), "no lab snapshot") {
		t.Errorf("on a pair without a standby: %v", err)
	}
}
