package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/pgversion"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
)

// A Scenario is one state the lab makes: its recipe, and what the state
// must show under the scenario's own name (Expect) and under each of its
// variants' labels.
type Scenario struct {
	lab.Recipe
	Expect
	// Variants are the recipe run with other options under labels of their
	// own (their recordings are named after them).
	Variants []Variant
	// Busy says --busy applies: a layout scenario measured with its load
	// running (see Lookup).
	Busy bool
	// Elsewhere names what makes and checks this state instead of
	// TestIntegrationScenarios ("" = that test runs it).
	Elsewhere string
	// Physical says the state is a physical standby's (the publisher's,
	// lab.WithStandby): diagnose must read it as a primary and a standby,
	// which TestIntegrationScenarios does not do yet, so it skips the
	// case; 'lagscope lab run' makes it and checks it (its Check).
	Physical bool
}

// PhysicalSkip is why TestIntegrationScenarios skips a physical case.
const PhysicalSkip = "a physical standby's state: diagnose reads it with --primary/--standby (issue 40), which this test does not pass yet; 'lagscope lab run' makes and checks it"

// Expect is what a state must show when the lab makes it under one label.
type Expect struct {
	// Verdict is the diagnosis the state must produce.
	Verdict model.VerdictName
	// AlsoRight is a second verdict as true to the state the lab made as
	// Verdict ("" = none): an apply worker splitting its time between CPU
	// and reads from a fast disk is named CPU-bound or waiting on its disk
	// by a split that depends on the disk, as long as the evidence names
	// both parts (its Diagnosis).
	AlsoRight model.VerdictName
	// Recorded says how the lab made the state when its recordings in
	// internal/classify/testdata were made: expected.tsv's third column
	// ("" = the recipe's Summary).
	Recorded string
	// LinkRate is the link's rate when the integration test runs the state
	// (0 = 4 MB/s).
	LinkRate units.ByteRate
	// Check reads the lab's own measurement of the state and returns the
	// problems found: none when the lab made the state.
	Check func(r *lab.Result) []string
	// Diagnosis reads what diagnose said of the state beyond the verdict's
	// name and returns the problems found (nil: nothing more to say).
	Diagnosis func(d Diagnosed) []string
	// ApplyErrors is the conflict kind that the apply-errors finding of
	// 'lagscope check' must name on 18+, over the setup diagnose read ("" =
	// none).
	ApplyErrors string
	// ExactWithoutProc says diagnose must keep Verdict without /proc (the
	// publisher's CPU burst tells a starved walsender from the link);
	// otherwise it may also say inconclusive or name another verdict at a
	// confidence of at most 0.6.
	ExactWithoutProc bool
	// ByHand says why CI leaves the state out ("" = CI runs it);
	// $LAGSCOPE_TEST_BY_HAND=1 runs it.
	ByHand string
	// Window is diagnose's window in the integration test (0 = 10 s), and
	// BacklogTime the load it builds the state's backlog with (0 = the
	// recipe's share of the lab's window): a released backlog that replays
	// in seconds is diagnosed over its first 4 s, as by hand, and a state
	// that ends in about 10 s over its first 5 s.
	Window, BacklogTime time.Duration
	// OnceBefore18 says the state's point before 18 does not depend on the
	// version: make test runs it on one version below 18
	// ($LAGSCOPE_TEST_ONCE=1), and on every version from 18.
	OnceBefore18 bool
	// ComparedBy names the case whose drain and data comparison after the
	// window covers this state's data path, then why, as "label: why" (""
	// = the integration test drains this case's backlog once its window is
	// over and compares the data on both sides itself: lab.RunOptions.Verify).
	// The comparison checks that the lab's state, once lifted, replicates
	// the same rows; where the rows travel the same path as in the named
	// case (the same backlog, applied the same way, only faster or slower),
	// the comparison there covers it, and the drain here, up to a minute
	// at the state's own rate, is not repeated.
	// $LAGSCOPE_TEST_COMPARE_ALL=1 compares every case.
	ComparedBy string
	// EveryVersion says why the state or what diagnose must say of it
	// depends on the server's version, so that make test runs the case on
	// every version it tests ("" = it does not: make test runs it on one
	// version, $LAGSCOPE_TEST_SCENARIOS=all there and =every-version on
	// the others; the recordings of every version in
	// internal/classify/testdata keep the others' classification tested).
	EveryVersion string
}

// RunsOn says whether make test runs the case under the scenario selection
// sel ($LAGSCOPE_TEST_SCENARIOS): "every-version" runs only the cases whose
// point depends on the version; anything else ("all", "" by hand) runs
// every case.
func (c Case) RunsOn(sel string) bool {
	return sel != EveryVersionOnly || c.EveryVersion != ""
}

// Compares says whether the integration test drains the case's backlog and
// compares its data after the window: when its ComparedBy names no other
// case, or all is set ($LAGSCOPE_TEST_COMPARE_ALL).
func (c Case) Compares(all bool) bool { return all || c.ComparedBy == "" }

// ComparedIn is the label of the case ComparedBy names ("" none).
func (c Case) ComparedIn() string {
	label, _, _ := strings.Cut(c.ComparedBy, ":")
	return label
}

// EveryVersionOnly is the $LAGSCOPE_TEST_SCENARIOS value of the versions
// that run only the cases whose point depends on the version.
const EveryVersionOnly = "every-version"

// A Variant is a scenario's recipe run under another label, with its own
// expectations (a link of another rate, say).
type Variant struct {
	Label string
	Expect
}

// A Case is one label a scenario is made and recorded under: the
// scenario's own name or one of its variants'.
type Case struct {
	Label    string
	Scenario Scenario
	Expect
}

// Cases lists the scenario's own case, then its variants'.
func (s Scenario) Cases() []Case {
	cs := []Case{{Label: string(s.Name), Scenario: s, Expect: s.Expect}}
	for _, v := range s.Variants {
		cs = append(cs, Case{Label: v.Label, Scenario: s, Expect: v.Expect})
	}
	return cs
}

// How says how the lab made the case's state: Recorded, or the recipe's
// summary.
func (c Case) How() string {
	if c.Recorded != "" {
		return c.Recorded
	}
	return c.Scenario.Summary
}

// TablesyncSlot is the pattern of the slot a tablesync worker copies a
// table through: initial-sync's state is judged on it.
const TablesyncSlot = "_sync_"

// JudgedSlot is a pattern (a regular expression) of the slot whose path
// the state is judged on when diagnose reports several: "" for the
// subscription's only one.
func (c Case) JudgedSlot() string {
	if c.Scenario.InitialSync {
		return TablesyncSlot
	}
	return ""
}

// Diagnosed is what diagnose said of a state the lab made, for a
// scenario's Diagnosis.
type Diagnosed struct {
	// Path is the path the state is about (JudgedSlot's).
	Path report.Path
	// Version is the servers' version.
	Version pgversion.Version
	// Samples are diagnose's samples (their Setup is what 'lagscope check'
	// reads).
	Samples *sample.Recording
	// Physical is the physical path judged, for a physical case (nil
	// otherwise); Lab is the lab's own measurement of the state (its
	// ground truth: the conflict holder's pid, the catch-up times).
	Physical *report.PhysicalPath
	Lab      *lab.Result
	// Logf, when set, receives what a check found worth showing beside
	// its problems.
	Logf func(format string, args ...any)
}

func (d Diagnosed) logf(format string, args ...any) {
	if d.Logf != nil {
		d.Logf(format, args...)
	}
}

// problems collects what a check found wrong.
type problems []string

func (p *problems) add(format string, args ...any) {
	*p = append(*p, fmt.Sprintf(format, args...))
}
