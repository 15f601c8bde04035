package scenario

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
)

// osHogSubscriber: busy-loop processes outside PostgreSQL share the
// subscriber's pinned CPU with the apply worker: pg_stat_activity shows
// nothing beside it.
var osHogSubscriber = Scenario{
	Recipe: lab.Recipe{Name: "os-hog-subscriber", Summary: "apply-bound's backlog, while 2 busy-loop processes outside PostgreSQL (sh) run on the subscriber's pinned CPU: the apply worker waits on the run queue",
		Layout: lab.Flat, SubIndexes: 3, Steps: []lab.Step{lab.Backlog(1.2), lab.OSHogs(false, 2), lab.Enable},
		UntilBelow: lab.DrainedMB, Drains: true},
	Expect: Expect{ComparedBy: updatesCompared, Verdict: model.SubscriberStarved, Recorded: "apply-bound's backlog while 2 busy-loop processes outside PostgreSQL run on the subscriber's pinned CPU",
		Check: func(r *lab.Result) []string {
			var p problems
			if r.Apply.RunqueueShare < 0.3 {
				p.add("apply runqueue_share %.2f (cpu %.2f) beside 2 busy loops, want >= 0.3", r.Apply.RunqueueShare, r.Apply.CPUShare)
			}
			checkData(&p, r)
			return p
		},
		Diagnosis: func(d Diagnosed) []string {
			p := problems(competingNamed(d, model.StageApply))
			// Without /proc the loops are not in pg_stat_activity: the
			// burst alone must keep it from being the apply worker's own CPU.
			if d.Samples != nil {
				for _, in := range model.Inputs(d.Samples.WithoutProc(), nil) {
					if v := model.Classify(in); v.Name == model.SubscriberApplyCPU && v.Confidence > 0.5 {
						p.add("without /proc: %s at %.2f, want at most 0.5 (the apply worker is starved by processes outside PostgreSQL)", v.Name, v.Confidence)
					}
				}
			}
			return p
		}},
}

// competingNamed checks that diagnose named the busy loops among the load
// on the starved process's CPUs, with their CPU share (with /proc), in its
// competing-load evidence and in the unstarve remedy.
func competingNamed(d Diagnosed, stage model.StageName) []string {
	var p problems
	var line string
	for _, e := range d.Path.Evidence {
		if e.Key == model.EvCompetingLoad {
			line = e.Text
		}
	}
	d.logf("competing load: %s", line)
	if !strings.Contains(line, fmt.Sprintf("process %q pid", lab.OSHogComm)) || !strings.Contains(line, "of a core") {
		p.add("competing-load evidence %q: want the busy loops (%q) named with their CPU share", line, lab.OSHogComm)
	}
	named := false
	for _, pr := range d.Path.WhatIf {
		if strings.HasPrefix(pr.Change, "unstarve-") && strings.Contains(pr.Remedy, fmt.Sprintf("%q", lab.OSHogComm)) {
			named = true
		}
	}
	if !named {
		p.add("no unstarve remedy names the busy loops on the CPUs of stage %s", stage)
	}
	return p
}
