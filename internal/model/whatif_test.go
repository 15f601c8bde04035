package model

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/measure"
)

// costs are a setup's per-row cost sources, read whole, of these kinds on
// public.hot, each named after its kind ("CHECK_constraint").
func costs(ks ...audit.CostKind) RowCosts {
	out := RowCosts{Read: true}
	for _, k := range ks {
		out.Sources = append(out.Sources, audit.RowCost{Table: "public.hot", Kind: k, Object: strings.ReplaceAll(string(k), " ", "_"), AM: "gin"})
	}
	return out
}

func st(name StageName, util, runq, own float64) Stage {
	return Stage{Name: name, CPU: util - runq - own, Runq: runq, Own: own, Busy: util - own, Utilisation: util}
}

var unknownLink = Stage{Name: StageLink, CPU: -1, Runq: -1, Busy: -1, Utilisation: -1}

// found is a setup whose checks found something for the path.
func found(checks ...string) map[string]bool {
	out := map[string]bool{}
	for _, c := range checks {
		out[c] = true
	}
	return out
}

func changes(ps []Prediction) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Change)
	}
	return out
}

func TestPlan(t *testing.T) {
	apply := measure.Proc{TypeShares: map[string]float64{"Timeout": 0.95}}
	cases := []struct {
		name string
		in   Path
		// want: the changes predicted; drain: the first one's drain (0: not checked)
		want        []string
		drain       float64
		limitedBy   StageName
		notPredicts bool
	}{
		{name: "a path no stage limits gets no prediction",
			in: Path{Verdict: CaughtUp, Drain: 5e6, Stages: []Stage{st("walsender", 0.1, 0, 0), unknownLink, st("apply", 0.2, 0, 0)}}},
		{name: "a path that does not drain gets no prediction",
			in: Path{Limit: StageApply, Drain: 10, Stages: []Stage{st("apply", 1, 0, 0)}}},
		{name: "a twice faster link is capped by the stage that saturates next",
			in:   Path{Limit: StageLink, Drain: 8e6, Backlog: 80e6, Stages: []Stage{st("walsender", 0.2, 0, 0), unknownLink, st("apply", 0.625, 0, 0)}},
			want: []string{"link=2x"}, drain: 12.8e6, limitedBy: StageApply},
		{name: "a twice faster link doubles the drain when nothing else is near",
			in:   Path{Limit: StageLink, Drain: 8e6, Stages: []Stage{st("walsender", 0.2, 0, 0), unknownLink, st("apply", 0.3, 0, 0)}},
			want: []string{"link=2x"}, drain: 16e6, limitedBy: StageLink},
		{name: "a starved walsender's work without the run queue sets its capacity",
			in:   Path{Limit: StageWalsender, Drain: 1e6, Stages: []Stage{st("walsender", 1, 0.8, 0), unknownLink, st("apply", 0.05, 0, 0)}},
			want: []string{"unstarve-walsender"}, drain: 5e6, limitedBy: StageWalsender},
		{name: "an apply worker that waits a little on the run queue is not offered a CPU of its own",
			in: Path{Limit: StageApply, Drain: 10e6, Stages: []Stage{st("walsender", 0.4, 0, 0), unknownLink, st("apply", 1, 0.15, 0)}}},
		{name: "without the setup no remedy of the setup is offered",
			in: Path{Limit: StageApply, Drain: 10e6, Apply: apply, Stages: []Stage{st("walsender", 0.4, 0, 0), unknownLink, st("apply", 1, 0, 0.95)}}},
		{name: "a sleeping trigger's share of the window is what disabling it saves",
			in: Path{Limit: StageApply, Drain: 0.1e6, Apply: apply, Setup: &RemedySetup{Found: found(checkReplicaTriggers)},
				Stages: []Stage{st("walsender", 0.01, 0, 0), unknownLink, st("apply", 1, 0, 0.9)}},
			want: []string{"disable-trigger"}, drain: 1e6, limitedBy: StageApply},
		{name: "without the trigger the apply worker's capacity is the WAL it writes at the calibrated cost",
			in: Path{Limit: StageApply, Drain: 0.15e6, Apply: apply, SubWALPerSent: 1.2, Setup: &RemedySetup{Found: found(checkReplicaTriggers), Costs: costs(audit.CostTrigger)},
				Stages: []Stage{st("walsender", 0.004, 0, 0), unknownLink, st("apply", 1, 0, 0.9)}},
			want: []string{"disable-trigger"}, drain: 1 / (DefaultCalibration.ApplyCostPerWAL * 1.2), limitedBy: StageApply},
		{name: "a trigger that burns CPU is predicted from the WAL written, capped by the walsender",
			in: Path{Limit: StageApply, Drain: 1e6, SubWALPerSent: 1.25, Setup: &RemedySetup{Found: found(checkReplicaTriggers), Costs: costs(audit.CostTrigger)},
				Stages: []Stage{st("walsender", 0.05, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"disable-trigger"}, drain: 20e6, limitedBy: StageWalsender},
		{name: "a trigger beside a CHECK constraint that calls a function gets no figure from the WAL",
			in: Path{Limit: StageApply, Drain: 1e6, SubWALPerSent: 1.25, Setup: &RemedySetup{Found: found(checkReplicaTriggers), Costs: costs(audit.CostTrigger, audit.CostCheck)},
				Stages: []Stage{st("walsender", 0.05, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"disable-trigger"}, notPredicts: true},
		{name: "a trigger on tables whose constraints were not read gets no figure from the WAL",
			in: Path{Limit: StageApply, Drain: 1e6, SubWALPerSent: 1.25, Setup: &RemedySetup{Found: found(checkReplicaTriggers), Costs: RowCosts{Sources: costs(audit.CostTrigger).Sources}},
				Stages: []Stage{st("walsender", 0.05, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"disable-trigger"}, notPredicts: true},
		{name: "a CHECK constraint that calls a function, the only per-row cost, is predicted from the WAL written",
			in: Path{Limit: StageApply, Drain: 1e6, SubWALPerSent: 1.25, Setup: &RemedySetup{Found: found(checkApplyRowCosts), Costs: costs(audit.CostCheck)},
				Stages: []Stage{st("walsender", 0.05, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"drop-constraint"}, drain: 20e6, limitedBy: StageWalsender},
		{name: "a CHECK constraint beside an expression index gets no figure",
			in: Path{Limit: StageApply, Drain: 1e6, SubWALPerSent: 1.25, Setup: &RemedySetup{Found: found(checkApplyRowCosts), Costs: costs(audit.CostCheck, audit.CostExprIndex)},
				Stages: []Stage{st("walsender", 0.05, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"drop-constraint"}, notPredicts: true},
		{name: "a GIN index, the only cost beyond the WAL, has its CPU counted with the indexes' WAL",
			// 1 / (10 MB/s * 1.5) = 66.7 ms a MB: 1 - 0.03e-6 * 1.24 * 10e6 = 0.628 of the window left
			in: Path{Limit: StageApply, Drain: 10e6, SubWALPerSent: 1.5, Setup: &RemedySetup{Found: found(checkExtraSubscriberIndex), Costs: costs(audit.CostIndexKind)},
				Stages: []Stage{st("walsender", 0.1, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"drop-extra-indexes"}, drain: 10e6 / (30e-3 / 1e6 * 1.24 * 10e6), limitedBy: StageApply},
		{name: "a trigger that burns CPU is offered but not predicted without the subscriber's WAL",
			in: Path{Limit: StageApply, Drain: 5e6, Setup: &RemedySetup{Found: found(checkReplicaTriggers)},
				Stages: []Stage{st("walsender", 0.2, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"disable-trigger"}, notPredicts: true},
		{name: "an apply worker already faster than the calibrated cost gets no figure for its trigger",
			in: Path{Limit: StageApply, Drain: 40e6, SubWALPerSent: 1.25, Setup: &RemedySetup{Found: found(checkReplicaTriggers)},
				Stages: []Stage{st("walsender", 0.2, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"disable-trigger"}, notPredicts: true},
		{name: "extra indexes are predicted from the subscriber's WAL per byte sent, capped by the walsender",
			in: Path{Limit: StageApply, Drain: 10e6, SubWALPerSent: 3.1, Setup: &RemedySetup{Found: found(checkExtraSubscriberIndex)},
				Stages: []Stage{st("walsender", 0.5, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"drop-extra-indexes"}, drain: 20e6, limitedBy: StageWalsender},
		{name: "no extra index, no prediction for dropping them",
			in: Path{Limit: StageApply, Drain: 10e6, SubWALPerSent: 3.1, Setup: &RemedySetup{},
				Stages: []Stage{st("walsender", 0.5, 0, 0), unknownLink, st("apply", 1, 0, 0)}}},
		{name: "an index for FULL is predicted from the rows each change scanned, capped by the walsender",
			in: Path{Limit: StageApply, Drain: 0.1e6, Setup: &RemedySetup{Found: found(checkFullIdentityNoIndex), RowsReadPerChange: 500000},
				Stages: []Stage{st("walsender", 0.01, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"index-for-full"}, drain: 10e6, limitedBy: StageWalsender},
		{name: "a subscription in text is offered binary, not predicted without the subscriber's WAL",
			in: Path{Limit: StageApply, Drain: 10e6, Setup: &RemedySetup{Found: found(checkBinaryTransfer)},
				Stages: []Stage{st("walsender", 0.3, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"binary=on"}, notPredicts: true},
		{name: "an apply worker at binary transfer's cost per WAL byte gains nothing from binary",
			in: Path{Limit: StageApply, Drain: 16e6, SubWALPerSent: 2.4, Setup: &RemedySetup{Found: found(checkBinaryTransfer)},
				Stages: []Stage{st("walsender", 0.4, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"binary=on"}, drain: 16e6, limitedBy: StageApply},
		{name: "an apply worker's CPU beyond binary transfer's cost gets no binary figure: it is not attributed to the input functions",
			// 1 / (10 MB/s * 2) = 50 ms per MB of WAL, 20 above 30
			in: Path{Limit: StageApply, Drain: 10e6, SubWALPerSent: 2, Setup: &RemedySetup{Found: found(checkBinaryTransfer), Costs: costs()},
				Stages: []Stage{st("walsender", 0.3, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"binary=on"}, notPredicts: true},
		{name: "binary is not predicted beside a trigger: the excess is not the input functions' alone",
			in: Path{Limit: StageApply, Drain: 10e6, SubWALPerSent: 2, Setup: &RemedySetup{Found: found(checkBinaryTransfer, checkReplicaTriggers), Costs: costs(audit.CostTrigger)},
				Stages: []Stage{st("walsender", 0.3, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"disable-trigger", "binary=on"}, drain: 1 / (DefaultCalibration.ApplyCostPerWAL * 2), limitedBy: StageApply},
		{name: "a subscription in binary is not offered binary",
			in: Path{Limit: StageApply, Drain: 10e6, Setup: &RemedySetup{},
				Stages: []Stage{st("walsender", 0.3, 0, 0), unknownLink, st("apply", 1, 0, 0)}}},
		{name: "a large transaction sent whole is offered streaming = parallel on 16+, not predicted",
			in: Path{Verdict: LargeTransaction, Limit: StageWalsender, Drain: 40e6, Setup: &RemedySetup{Found: found(checkStreamingOff), Parallel: true},
				Stages: []Stage{st("walsender", 1, 0, 0), unknownLink, st("apply", 0.01, 0, 0)}},
			want: []string{"streaming=parallel"}, notPredicts: true},
		{name: "before 16 a large transaction is not offered streaming = parallel",
			in: Path{Verdict: LargeTransaction, Limit: StageWalsender, Drain: 40e6, Setup: &RemedySetup{Found: found(checkStreamingOff)},
				Stages: []Stage{st("walsender", 1, 0, 0), unknownLink, st("apply", 0.01, 0, 0)}}},
		{name: "a subscription that streams already is not offered streaming = parallel",
			in: Path{Verdict: LargeTransaction, Limit: StageWalsender, Drain: 40e6, Setup: &RemedySetup{Parallel: true},
				Stages: []Stage{st("walsender", 1, 0, 0), unknownLink, st("apply", 0.01, 0, 0)}}},
		{name: "a split carries the busiest subscription's share: 300 | 100+100 rows on 2 cores",
			in: Path{Limit: StageApply, Drain: 10e6, SubCPUs: 2, PubCPUs: 2, Setup: &RemedySetup{TableChanges: []int64{100, 300, 100}},
				Stages: []Stage{st("walsender", 0.4, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"split=2"}, drain: 10e6 * 500 / 300, limitedBy: StageApply},
		{name: "split walsenders on fewer publisher CPUs share them",
			in: Path{Limit: StageApply, Drain: 10e6, SubCPUs: 4, PubCPUs: 1, Setup: &RemedySetup{TableChanges: []int64{100, 100}},
				Stages: []Stage{st("walsender", 0.4, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"split=2"}, drain: 10e6 / 0.4 / 2, limitedBy: StageWalsender},
		{name: "one table that changed cannot be split",
			in: Path{Limit: StageApply, Drain: 10e6, SubCPUs: 4, Setup: &RemedySetup{TableChanges: []int64{100}},
				Stages: []Stage{st("walsender", 0.4, 0, 0), unknownLink, st("apply", 1, 0, 0)}}},
		{name: "a split under the subscriber's CPU limit is offered but not predicted",
			in: Path{Limit: StageApply, Drain: 10e6, SubCPUs: 4, Setup: &RemedySetup{TableChanges: []int64{100, 100}},
				Apply:  measure.Proc{Throttle: measure.Throttle{Cgroup: "/lab", Share: 0.9}},
				Stages: []Stage{st("walsender", 0.4, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"split=2"}, notPredicts: true},
		{name: "a 1-CPU subscriber is offered a split but not predicted",
			in: Path{Limit: StageApply, Drain: 10e6, SubCPUs: 1, Setup: &RemedySetup{TableChanges: []int64{100, 100}},
				Stages: []Stage{st("walsender", 0.4, 0, 0), unknownLink, st("apply", 1, 0, 0)}},
			want: []string{"split=N"}, notPredicts: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Plan(c.in)
			if strings.Join(changes(got), ",") != strings.Join(c.want, ",") {
				t.Fatalf("predicted %v, want %v", changes(got), c.want)
			}
			if len(got) == 0 {
				return
			}
			p := got[0]
			if c.notPredicts {
				if p.NotPredicted == "" || p.Drain != 0 {
					t.Errorf("%+v: want not predicted", p)
				}
				return
			}
			if d := p.Drain/c.drain - 1; d > 0.001 || d < -0.001 {
				t.Errorf("drain %.0f, want %.0f (%s)", p.Drain, c.drain, p)
			}
			if p.LimitedBy != c.limitedBy {
				t.Errorf("limited by %q, want %q", p.LimitedBy, c.limitedBy)
			}
			if p.Model == "" {
				t.Errorf("no model named: %s", p)
			}
		})
	}
}

func TestCatchUpSaysWhenThePathStillFallsBehind(t *testing.T) {
	in := Path{Limit: StageLink, Drain: 8e6, Generated: 17e6, Backlog: 100e6,
		Stages: []Stage{st("walsender", 0.2, 0, 0), unknownLink, st("apply", 0.3, 0, 0)}}
	p := Plan(in)[0]
	if p.CatchUpS != -1 || !strings.Contains(p.String(), "still falling behind") {
		t.Errorf("%s: want still falling behind (16 MB/s against 17 MB/s written)", p)
	}
}

func TestASleepingTriggersPredictionIsALowerBound(t *testing.T) {
	in := Path{Limit: StageApply, Drain: 0.15e6, Backlog: 30e6, Setup: &RemedySetup{Found: found(checkReplicaTriggers), Costs: costs(audit.CostTrigger)},
		Apply:  measure.Proc{TypeShares: map[string]float64{"Timeout": 0.97}},
		Stages: []Stage{st("walsender", 0.005, 0, 0), unknownLink, st("apply", 1, 0, 0.97)}}
	p := Plan(in)[0]
	if !p.AtLeast || !strings.Contains(p.String(), "drains at least") || !strings.Contains(p.String(), "caught up in at most") {
		t.Errorf("%s: want a lower bound (the sleep's own CPU counts as work)", p)
	}
	in.SubWALPerSent = 1.2
	if p := Plan(in)[0]; p.AtLeast || !strings.Contains(p.String(), "drains about") || strings.Join(p.Residual, ",") != `trigger trigger on public.hot` {
		t.Errorf("%s (residual %q): with the subscriber's WAL read, want a figure put down to the trigger, not a bound", p, p.Residual)
	}
	in.Setup.Costs = costs(audit.CostTrigger, audit.CostGenerated)
	if p := Plan(in)[0]; !p.AtLeast || p.Residual != nil {
		t.Errorf("%s: beside a generated column, want the sleep's bound, not the residual", p)
	}
}

func TestBinaryIsNotPredictedBesideATrigger(t *testing.T) {
	in := Path{Limit: StageApply, Drain: 10e6, SubWALPerSent: 2, Setup: &RemedySetup{Found: found(checkBinaryTransfer, checkReplicaTriggers)},
		Stages: []Stage{st("walsender", 0.3, 0, 0), unknownLink, st("apply", 1, 0, 0)}}
	offered := false
	for _, p := range Plan(in) {
		if p.Change == "binary=on" {
			offered = true
			if p.NotPredicted == "" || p.Drain != 0 {
				t.Errorf("%s: want binary=on offered without a figure beside a trigger", p)
			}
		}
	}
	if !offered {
		t.Error("binary=on not offered to a subscription in text")
	}
}

func TestAFasterLinkOfAGivenRateIsCappedByTheNextLimit(t *testing.T) {
	in := Path{Limit: StageLink, Drain: 8e6, Link: LinkRates{Now: 3e6, To: 4.5e6},
		Stages: []Stage{st("walsender", 0.2, 0, 0), unknownLink, st("apply", 0.5, 0, 0)}}
	got := Plan(in)
	if strings.Join(changes(got), ",") != "link=2x,link=4.5MB/s" {
		t.Fatalf("predicted %v, want link=2x and link=4.5MB/s", changes(got))
	}
	if p := got[1]; p.Drain != 12e6 || p.LimitedBy != StageLink || !Remedies[1].Names(p.Change) || Remedies[0].Names(p.Change) {
		t.Errorf("%s: want 12 MB/s (1.5x), limited by the link, named by link=RATE only", p)
	}
	in.Link.To = 9e6
	if p := Plan(in)[1]; p.Drain != 16e6 || p.LimitedBy != StageApply {
		t.Errorf("%s: want 16 MB/s, capped by the apply worker", p)
	}
	in.Link = LinkRates{To: 9e6}
	if got := changes(Plan(in)); len(got) != 1 {
		t.Errorf("predicted %v without today's rate: want link=2x alone", got)
	}
	if !Remedies[1].Names("link=100Mbps") || Remedies[1].Names(string(KeyLinkTwice)) {
		t.Error("link=RATE names link=100Mbps and not link=2x")
	}
}

// An idle apply worker whose time per WAL byte is far past its wakes'
// cost (a trigger computing beside a link that limits) is not taken at the
// calibrated cost: its cap stays today's drain over its work.
func TestAnIdleApplyWorkerBusyWithATriggerKeepsItsOwnCap(t *testing.T) {
	in := Path{Limit: StageLink, Drain: 1e6, SubWALPerSent: 1.2, Link: LinkRates{Now: 1e6, To: 10e6},
		Stages: []Stage{st("walsender", 0.05, 0, 0), unknownLink, st("apply", 0.42, 0, 0)}}
	p := Plan(in)[1]
	if want := 1e6 / 0.42; p.LimitedBy != StageApply || p.Drain/want > 1.001 || p.Drain/want < 0.999 {
		t.Errorf("%s: want capped by the apply worker at %.2f MB/s (350 ms a MB of WAL is not its wakes)", p, want/1e6)
	}
}

// An idle apply worker's calibrated capacity puts its time beyond the
// calibrated cost down to its wakes: the figure says so in Residual, and
// where the setup shows a per-row cost (which that time would be) the cap is
// today's drain over its work instead.
func TestAnIdleApplyWorkersCalibratedCapIsItsWakesOnlyWithoutOtherCosts(t *testing.T) {
	in := Path{Limit: StageLink, Drain: 1e6, SubWALPerSent: 1.2, Link: LinkRates{Now: 1e6, To: 100e6},
		Stages: []Stage{st("walsender", 0.01, 0, 0), unknownLink, st("apply", 0.05, 0, 0)}}
	p := Plan(in)[1]
	if want := 1 / (30e-3 / 1e6 * 1.2); p.LimitedBy != StageApply || p.Drain/want > 1.001 || p.Drain/want < 0.999 || strings.Join(p.Residual, "") != IdleWakes {
		t.Fatalf("%s (residual %q): want the calibrated cap, %.1f MB/s, put down to its wakes", p, p.Residual, want/1e6)
	}
	in.Setup = &RemedySetup{Costs: costs(audit.CostCheck)}
	p = Plan(in)[1]
	if want := 1e6 / 0.05; p.Drain/want > 1.001 || p.Drain/want < 0.999 || p.Residual != nil {
		t.Errorf("%s (residual %q): beside a CHECK constraint's function want today's drain / its work, %.1f MB/s", p, p.Residual, want/1e6)
	}
}

// A prediction that rests on the lab's calibration takes its figures and
// its machine from the profile it is given: an apply worker twice as slow
// per MB of WAL halves what disabling a trigger buys, and the model names
// that profile's machine.
func TestAPredictionTakesItsFiguresFromTheCalibrationProfile(t *testing.T) {
	slow := Calibration{Name: "a slower machine", Machine: "a 1-vCPU test box", ApplyCostPerWAL: 60e-3 / 1e6,
		IdleWakeCost: 120e-3 / 1e6, BaseWALPerSent: 1.24, BinaryResolution: 0.25}
	in := Path{Limit: StageApply, Drain: 0.15e6, SubWALPerSent: 1.2, Setup: &RemedySetup{Found: found(checkReplicaTriggers), Costs: costs(audit.CostTrigger)},
		Stages: []Stage{st("walsender", 0.004, 0, 0), unknownLink, st("apply", 1, 0, 0)}}
	lab := Plan(in)[0]
	in.Calibration = slow
	p := Plan(in)[0]
	if r := lab.Drain / p.Drain; r < 1.999 || r > 2.001 {
		t.Errorf("drain %.0f with the slower profile, %.0f with the lab's: want half", p.Drain, lab.Drain)
	}
	if !strings.Contains(p.Model, "about 60 ms of its time per MB written (measured in lagscope's lab on a 1-vCPU test box") {
		t.Errorf("model %q: want the profile's cost and machine", p.Model)
	}
	if !strings.Contains(lab.Model, "about 30 ms of its time per MB written (measured in lagscope's lab on a 2-vCPU VM") {
		t.Errorf("model %q: want the default profile's cost and machine", lab.Model)
	}
}
