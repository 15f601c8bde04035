package scenario

import (
	"slices"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/lab/whatif"
)

// Every scenario is complete as data: it has steps, each named; it ends
// in a state where its path runs (a subscription enabled or a consumer
// started) unless its verdict is stalled (stalled and slot-filling keep
// the subscription disabled); a scenario that measures until drained has
// no load left running.
func TestScenariosAreCompleteAsData(t *testing.T) {
	for _, s := range All {
		if len(s.Steps) == 0 || s.Verdict == "" || s.Summary == "" {
			t.Errorf("%s: steps, verdict and summary are required", s.Name)
		}
		var names []string
		for _, st := range s.Steps {
			if st.Name == "" || st.Start == nil {
				t.Errorf("%s: a step without a name or a start", s.Name)
			}
			names = append(names, st.Name)
		}
		runs := slices.Contains(names, "enable") || slices.Contains(names, "consumer") || slices.Contains(names, "standby")
		if s.Physical != (len(names) > 0 && names[0] == "standby") {
			t.Errorf("%s: Physical %t but steps %v: a physical scenario makes its standby first", s.Name, s.Physical, names)
		}
		if !runs && s.Verdict != "stalled" {
			t.Errorf("%s: steps %v: the path must run (enable or consumer) unless the scenario keeps it disabled", s.Name, names)
		}
		if (s.Consumer != "") != slices.Contains(names, "consumer") {
			t.Errorf("%s: Consumer %q but steps %v", s.Name, s.Consumer, names)
		}
		loads := slices.Contains(names, "full load") || slices.Contains(names, "light load") || slices.Contains(names, "backlog under load") ||
			slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "steady load") })
		if loads && s.UntilBelow > 0 {
			t.Errorf("%s: a load keeps running, so the backlog never drains: UntilBelow must be 0", s.Name)
		}
	}
}

// Every case has a label of its own and a verdict; every case the
// integration test makes has a check of the lab's state, and every
// scenario it leaves out says what makes the state instead.
func TestEveryCaseIsCheckedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Cases() {
		if c.Label == "" || seen[c.Label] {
			t.Errorf("case %q: a label must be given once", c.Label)
		}
		seen[c.Label] = true
		if c.Verdict == "" {
			t.Errorf("%s: no verdict", c.Label)
		}
		if c.Scenario.Elsewhere == "" && c.Check == nil {
			t.Errorf("%s: the integration test makes it without a state check", c.Label)
		}
		if c.Scenario.Elsewhere != "" && (c.Check != nil || c.Diagnosis != nil) {
			t.Errorf("%s: checks that nothing runs (it is made by %s)", c.Label, c.Scenario.Elsewhere)
		}
	}
}

// A layout scenario looked up busy keeps its load running and expects a
// starved walsender; --busy on any other scenario is refused, naming the
// ones it applies to; an unknown name is refused with the names.
func TestLookupBusyAppliesToTheLayoutsOnly(t *testing.T) {
	s, err := Lookup("hash4-4", true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Verdict != "walsender-starved" || s.UntilBelow != 0 || s.Drains || s.Steps[0].Name != "backlog under load" {
		t.Errorf("hash4-4 busy: verdict %s, until below %d, drains %t, first step %q", s.Verdict, s.UntilBelow, s.Drains, s.Steps[0].Name)
	}
	if idle, _ := Lookup("hash4-4", false); idle.Verdict != "subscriber-apply-cpu" || !idle.Drains {
		t.Errorf("hash4-4 idle changed by the busy lookup: %+v", idle.Expect)
	}
	_, err = Lookup("apply-bound", true)
	if err == nil || err.Error() != "--busy applies to the layout scenarios flat, hash4-1 and hash4-4, not apply-bound" {
		t.Errorf("apply-bound busy: %v", err)
	}
	if _, err := Lookup("no-such", false); err == nil || !strings.Contains(err.Error(), "choose one of apply-bound, apply-text,") {
		t.Errorf("unknown scenario: %v", err)
	}
}

// Every state a lab change is measured from is a scenario.
func TestEveryChangeIsMeasuredFromAScenario(t *testing.T) {
	for _, ch := range whatif.AllChanges() {
		for _, name := range ch.Scenarios {
			if _, err := Lookup(string(name), false); err != nil {
				t.Errorf("change %s: %v", ch.Name, err)
			}
		}
	}
}

// A change that needs more backlog queues it behind the state's own, before
// the subscriptions are enabled; a change without one leaves the scenario
// as it is.
func TestChangeForQueuesMoreBacklogBeforeEnable(t *testing.T) {
	ch, scen, err := whatif.LookupChange("index-for-full", "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Lookup(scen, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, st := range ch.For(s.Recipe).Steps {
		names = append(names, st.Name)
	}
	if want := []string{"backlog of single-row updates", "more single-row updates", "enable"}; !slices.Equal(names, want) {
		t.Errorf("index-for-full's steps %v, want %v", names, want)
	}
	link, scen, err := whatif.LookupChange("link=2x", "")
	if err != nil {
		t.Fatal(err)
	}
	s, err = Lookup(scen, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := link.For(s.Recipe); len(got.Steps) != len(s.Steps) {
		t.Errorf("link=2x changed the network scenario's steps: %d, want %d", len(got.Steps), len(s.Steps))
	}
}

// make test runs a case on every version only when its point depends on
// the version; a case whose pre-18 behaviour is tested once must be among
// them, or no version below 18 would run it.
func TestOnlyVersionDependentCasesRunOnEveryVersion(t *testing.T) {
	every, one := 0, 0
	for _, c := range Cases() {
		if !c.RunsOn("all") || !c.RunsOn("") {
			t.Errorf("%s: left out of a run of all cases", c.Label)
		}
		switch runs := c.RunsOn(EveryVersionOnly); {
		case runs && c.EveryVersion == "":
			t.Errorf("%s runs on every version without saying why", c.Label)
		case !runs && c.EveryVersion != "":
			t.Errorf("%s says it depends on the version (%s) but runs on one", c.Label, c.EveryVersion)
		case c.OnceBefore18 && !runs:
			t.Errorf("%s is tested once before 18 but runs on one version only", c.Label)
		case runs:
			every++
		default:
			one++
		}
	}
	if every == 0 || one == 0 {
		t.Errorf("%d cases run on every version and %d on one: want some of each", every, one)
	}
}

// A case whose data another case compares names a case that compares its
// own, runs in CI on the version that runs every case and is not left to
// runs by hand, so that the path it stands for is compared in every make
// test.
func TestComparedByNamesACaseThatCompares(t *testing.T) {
	byLabel := map[string]Case{}
	for _, c := range Cases() {
		byLabel[c.Label] = c
	}
	for _, c := range Cases() {
		if c.ComparedBy == "" {
			continue
		}
		by, ok := byLabel[c.ComparedIn()]
		switch {
		case !ok:
			t.Errorf("%s: ComparedBy %q names no case", c.Label, c.ComparedBy)
		case !by.Compares(false) || by.ByHand != "" || by.Scenario.Elsewhere != "" || !by.Scenario.Drains:
			t.Errorf("%s: ComparedBy names %s, which does not drain and compare its data in CI", c.Label, by.Label)
		case !strings.HasPrefix(c.ComparedBy, by.Label+": ") || len(c.ComparedBy) < len(by.Label)+20:
			t.Errorf("%s: ComparedBy %q: want \"label: why\"", c.Label, c.ComparedBy)
		case !by.RunsOn(EveryVersionOnly) && c.RunsOn(EveryVersionOnly):
			t.Errorf("%s runs on every version but %s, which compares its data, on one", c.Label, by.Label)
		}
	}
}
