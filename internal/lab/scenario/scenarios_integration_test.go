package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// integrationOptions finds binaries for the lab's integration tests (skipped
// with -short or when no PostgreSQL is installed) and returns quick-run options.
func integrationOptions(t *testing.T) lab.RunOptions {
	t.Helper()
	dir, pgbench := labtest.PGBench(t)
	return lab.RunOptions{
		PGBench:  pgbench,
		Clients:  16,
		Duration: 10 * time.Second,
		Tick:     time.Second,
		ProbeHz:  10,
		Verify:   true,
		Log:      labtest.Log{T: t},
		Pair: lab.PairOptions{Bin: dir.Bin, PubCPUs: []int{0}, SubCPUs: []int{1}, Rows: 100_000,
			LinkRate: 8_000_000, Binary: true, Streaming: "on"},
	}
}

// runScenario runs one scenario and saves its recording under
// $LAGSCOPE_RECORD_DIR when set (that is how testdata/ is made), named after
// label.
func runScenario(t *testing.T, label, name string, tweak func(*lab.RunOptions)) *lab.Result {
	t.Helper()
	o := integrationOptions(t)
	if tweak != nil {
		tweak(&o)
	}
	s, err := Lookup(name, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := lab.Run(ctx, s.Recipe, o)
	if err != nil {
		t.Fatalf("lab run %s: %v", name, err)
	}
	b, _ := json.Marshal(res)
	t.Logf("%s took %s: %s", name, time.Since(start).Round(time.Second), b)
	if dir := os.Getenv("LAGSCOPE_RECORD_DIR"); dir != "" {
		rb, _ := json.Marshal(res.Recording)
		path := filepath.Join(dir, fmt.Sprintf("%s-pg%s-%d.json", label, res.ServerVersion, time.Now().Unix()))
		if err := os.WriteFile(path, rb, 0o644); err != nil {
			t.Errorf("save recording: %v", err)
		}
	}
	return res
}

// diagnoseDuring runs lagscope diagnose against the pair as a user would,
// for window (0 = 10 s). With $LAGSCOPE_RECORD_DIR set it saves diagnose's own samples there
// (that is how internal/classify/testdata is recorded).
// *rec receives diagnose's samples.
// A scenario whose consumer is not a subscription is diagnosed from the
// publisher only.
func diagnoseDuring(name string, s Scenario, window time.Duration, recOut **sample.Recording) func(ctx context.Context, p *lab.Pair) (any, error) {
	return func(ctx context.Context, p *lab.Pair) (any, error) {
		sub := p.Sub.ConnString(lab.Database)
		if s.Consumer != "" {
			sub = ""
		}
		if window <= 0 {
			window = 10 * time.Second
		}
		o := diagnose.Options{
			Publisher: p.Pub.ConnString(lab.Database), Subscriber: sub,
			Duration: window, ProbeHz: 20, Tick: time.Second,
			AlwaysBurst: true, // checkNoProc classifies the samples without /proc
		}
		run, source := diagnose.Run, sample.PublisherNode
		if s.Physical {
			o.Publisher, o.Subscriber = "", ""
			o.Primary, o.Standby = p.Pub.ConnString(lab.Database), p.PhysicalStandby().ConnString()
			run, source = diagnose.RunPhysical, sample.PrimaryNode
		}
		rep, rec, err := run(ctx, o)
		*recOut = rec
		if dir := os.Getenv("LAGSCOPE_RECORD_DIR"); dir != "" && rec != nil && rec.Server(source) != nil {
			b, _ := json.Marshal(rec)
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("diag-%s-pg%s-%d.json", name, rec.Server(source).Version, time.Now().Unix())), b, 0o644)
		}
		return rep, err
	}
}

// repeats is how many times each scenario runs ($LAGSCOPE_TEST_REPEAT, default 1).
func repeats() int {
	if n, err := strconv.Atoi(os.Getenv("LAGSCOPE_TEST_REPEAT")); err == nil && n > 0 {
		return n
	}
	return 1
}

// TestIntegrationScenarios runs every case of the registry that no other
// test makes (Elsewhere), checks the state in the lab's own measurement
// (its Check), and checks that diagnose, run against the pair while the
// scenario holds, names the case's verdict and says what its Diagnosis
// wants.
func TestIntegrationScenarios(t *testing.T) {
	for _, c := range Cases() {
		s := c.Scenario
		if s.Elsewhere != "" {
			continue
		}
		label, rate := c.Label, c.LinkRate
		if rate == 0 {
			rate = 4_000_000
		}
		for i := 1; i <= repeats(); i++ {
			t.Run(fmt.Sprintf("%s/run%d", label, i), func(t *testing.T) {
				if c.OnceBefore18 && labtest.Servers(t).Version.Major < 18 && os.Getenv("LAGSCOPE_TEST_ONCE") != "1" {
					t.Skipf("%s: before 18 every version says the same (no conflict counters): runs on one (LAGSCOPE_TEST_ONCE=1)", label)
				}
				if !c.RunsOn(os.Getenv("LAGSCOPE_TEST_SCENARIOS")) {
					t.Skipf("%s: its point does not depend on the version: make test runs it on one (LAGSCOPE_TEST_SCENARIOS=all)", label)
				}
				if c.ByHand != "" && os.Getenv("LAGSCOPE_TEST_BY_HAND") == "" {
					t.Skipf("%s: left out of CI (%s); run it by hand with LAGSCOPE_TEST_BY_HAND=1", label, c.ByHand)
				}
				if s.PubReadLimit > 0 || s.SubReadLimit > 0 {
					if err := lab.ReadLimitAvailable(""); err != nil {
						t.Skipf("%s needs a cgroup disk read limit: %v", s.Name, err)
					}
				}
				if s.SubCPULimit > 0 {
					if err := lab.CPULimitAvailable(); err != nil {
						t.Skipf("%s needs a cgroup CPU limit: %v", s.Name, err)
					}
				}
				v := labtest.Servers(t).Version
				if s.RowFilter != "" && v.Major < 15 {
					t.Skipf("%s uses a publication row filter: PostgreSQL 15+, this is %s", s.Name, v)
				} else if v.Major < s.MinMajor {
					t.Skipf("%s uses %s: PostgreSQL %d+, this is %s", s.Name, s.Needs, s.MinMajor, v)
				}
				first := i == 1
				var rec *sample.Recording
				r := runScenario(t, label, string(s.Name), func(o *lab.RunOptions) {
					// 4 MB/s unless the case says otherwise: on this 2-vCPU VM a
					// walsender feeding 8 MB/s already uses ~35% of a core (a
					// send() per change), which blurs the network signature;
					// the lab's default stays seed 000's 8 MB/s.
					o.Pair.LinkRate = rate
					o.BacklogTime = c.BacklogTime
					o.During = diagnoseDuring(label, s, c.Window, &rec)
					// Later runs only repeat the diagnosis; a case whose data
					// path another case compares (ComparedBy) is not drained.
					o.Verify = first && c.Compares(os.Getenv("LAGSCOPE_TEST_COMPARE_ALL") == "1")
				})
				for _, p := range c.Check(r) {
					t.Error(p)
				}
				rep, ok := r.During.(report.Report)
				if !ok {
					t.Fatalf("diagnosis = %#v, want a report", r.During)
				}
				p := judgedPath(t, rep, c)
				if got := p.Name; got != c.Verdict && (c.AlsoRight == "" || got != c.AlsoRight) {
					t.Errorf("diagnose named %s (confidence %.2f, evidence %q), want %s", got, p.Confidence, model.EvidenceTexts(p.Evidence), c.Verdict)
				}
				if c.Diagnosis != nil {
					d := Diagnosed{Path: p, Version: v, Samples: rec, Lab: r, Logf: t.Logf}
					if s.Physical {
						pp := judgedPhysical(t, rep)
						d.Physical = &pp
					}
					for _, problem := range c.Diagnosis(d) {
						t.Error(problem)
					}
				}
				if c.ApplyErrors != "" && v.Major >= 18 {
					checkApplyErrorsFinding(t, c.ApplyErrors, rec)
				}
				checkNoProc(t, c, rec)
			})
		}
	}
}

// checkNoProc classifies diagnose's samples again as 'diagnose --no-proc'
// would have made them (the same reads from the servers, no /proc figures):
// a case that is ExactWithoutProc must keep its verdict; every other case
// keeps it, says inconclusive, or names another verdict at a confidence of
// at most 0.6.
func checkNoProc(t *testing.T, c Case, rec *sample.Recording) {
	t.Helper()
	if rec == nil {
		t.Fatal("no samples from diagnose")
	}
	build := func(r *sample.Recording) report.Report { return diagnose.Build(r, nil, 20) }
	if c.Scenario.Physical {
		build = func(r *sample.Recording) report.Report { return diagnose.BuildPhysical(r, 20) }
	}
	p := judgedPath(t, build(rec.WithoutProc()), c)
	t.Logf("without /proc: %s (confidence %.2f), evidence %q", p.Name, p.Confidence, model.EvidenceTexts(p.Evidence))
	switch {
	case p.Name == c.Verdict:
	case c.ExactWithoutProc:
		t.Errorf("without /proc diagnose named %s (confidence %.2f, evidence %q), want %s", p.Name, p.Confidence, model.EvidenceTexts(p.Evidence), c.Verdict)
	case p.Name != model.Inconclusive && p.Confidence > 0.6:
		t.Errorf("without /proc diagnose named %s at confidence %.2f (evidence %q): the lab made %s; a wrong verdict must stay at 0.6 or under", p.Name, p.Confidence, model.EvidenceTexts(p.Evidence), c.Verdict)
	}
}

// judgedPath picks the path the case is about: its one subscription's
// slot, or the slot its JudgedSlot matches (initial-sync's tablesync slot
// beside its subscription's).
func judgedPath(t *testing.T, rep report.Report, c Case) report.Path {
	t.Helper()
	if c.Scenario.Physical {
		pp := judgedPhysical(t, rep)
		return report.Path{Slot: pp.Standby, Verdict: pp.Verdict}
	}
	want := 1
	slot := c.JudgedSlot()
	if slot != "" {
		want = 2
	}
	if len(rep.Paths) != want {
		var slots []string
		for _, p := range rep.Paths {
			slots = append(slots, p.Slot+" "+string(p.Name))
		}
		t.Fatalf("diagnosis has %d path(s) %q, want %d", len(rep.Paths), slots, want)
	}
	for _, p := range rep.Paths {
		if slot == "" || regexp.MustCompile(slot).MatchString(p.Slot) {
			return p
		}
	}
	t.Fatalf("no slot matching %s among %d paths", slot, len(rep.Paths))
	return report.Path{}
}

// judgedPhysical is the one physical path of a physical case's report
// (diagnose --primary --standby judges the standby it is given).
func judgedPhysical(t *testing.T, rep report.Report) report.PhysicalPath {
	t.Helper()
	if len(rep.Physical) != 1 {
		var names []string
		for _, p := range rep.Physical {
			names = append(names, p.Standby+" "+string(p.Name))
		}
		t.Fatalf("diagnosis has %d physical path(s) %q, want 1", len(rep.Physical), names)
	}
	return rep.Physical[0]
}

// checkApplyErrorsFinding runs 'lagscope check's checks over the setup
// diagnose read after its window: apply-errors must name the conflict
// kind.
func checkApplyErrorsFinding(t *testing.T, kind string, rec *sample.Recording) {
	t.Helper()
	if rec == nil {
		t.Fatal("no samples from diagnose")
	}
	var snaps audit.Snapshots
	if err := json.Unmarshal(rec.Setup, &snaps); err != nil {
		t.Fatalf("setup: %v (%s)", err, rec.SetupError)
	}
	for _, r := range audit.Run(snaps, audit.All) {
		for _, f := range r.Findings {
			if r.Check == "apply-errors" && strings.Contains(f.Found, kind) {
				t.Logf("check: %s", f.Found)
				return
			}
		}
	}
	t.Errorf("no apply-errors finding names %s", kind)
}
