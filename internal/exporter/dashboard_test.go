package exporter

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Grafana dashboard's 'Limiting stage over time' panel maps every
// stage label value of lagscope_bottleneck to a number and the number to
// a name and a colour: a stage added to Stages without a row here would
// show only as 'another stage'.
func TestTheDashboardsStagePanelNamesEveryStage(t *testing.T) {
	b, err := os.ReadFile("../../docs/grafana/lagscope.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []dashboardPanel `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(d.Panels, func(p dashboardPanel) bool { return p.Title == "Limiting stage over time" })
	if i < 0 {
		t.Fatal("the dashboard has no 'Limiting stage over time' panel")
	}
	p := d.Panels[i]
	if p.Type != "state-timeline" || len(p.Targets) != 1 || len(p.FieldConfig.Defaults.Mappings) != 1 {
		t.Fatalf("the stage panel: %s with %d queries and %d mappings, want a state-timeline with one of each", p.Type, len(p.Targets), len(p.FieldConfig.Defaults.Mappings))
	}
	values := map[string]string{}
	for _, m := range regexp.MustCompile(`stage="([^"]+)"\} == 1\) \* (\d+)`).FindAllStringSubmatch(p.Targets[0].Expr, -1) {
		values[m[1]] = m[2]
	}
	opts := p.FieldConfig.Defaults.Mappings[0].Options
	seen := map[string]string{}
	for _, st := range Stages {
		v, ok := values[st]
		if !ok {
			t.Errorf("the stage panel's query maps no stage=%q", st)
			continue
		}
		o, ok := opts[v]
		if !ok || o.Text == "" || o.Color == "" {
			t.Errorf("stage %s is %s in the query and has no name and colour in the panel's mappings", st, v)
		}
		if other, dup := seen[v]; dup {
			t.Errorf("stages %s and %s are both %s", other, st, v)
		}
		seen[v] = st
	}
	promtoolEvaluates(t, p.Targets[0].Expr, values)
}

// promtoolEvaluates runs the stage panel's query expr through promtool's
// rule tests over one path whose limit moves through every stage, then to
// a stage no panel names: at each minute the query gives that stage's
// number (values), and 9 for the unnamed one.
func promtoolEvaluates(t *testing.T, expr string, values map[string]string) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Log("promtool is not installed (make deps installs Debian's prometheus): the query is not evaluated")
		return
	}
	stages := append(slices.Clone(Stages), "a_stage_to_come")
	var b strings.Builder
	b.WriteString("rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n")
	for i, st := range stages {
		vals := make([]string, len(stages))
		for j := range vals {
			vals[j] = "0"
		}
		vals[i] = "1"
		fmt.Fprintf(&b, "      - series: 'lagscope_bottleneck{pair=\"p\",slot=\"s\",subscription=\"s\",stage=\"%s\"}'\n        values: '%s'\n", st, strings.Join(vals, " "))
	}
	b.WriteString("    promql_expr_test:\n")
	q := strings.ReplaceAll(strings.ReplaceAll(expr, `"$pair"`, `".*"`), "\n", " ")
	for i, st := range stages {
		want, ok := values[st]
		if !ok {
			want = "9"
		}
		fmt.Fprintf(&b, "      - expr: '%s'\n        eval_time: %dm\n        exp_samples:\n          - labels: '{pair=\"p\",slot=\"s\",subscription=\"s\"}'\n            value: %s\n", q, i, want)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.yml"), []byte("groups: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test.yml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "test", "rules", "test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool over the stage panel's query: %v\n%s\n%s", err, out, b.String())
	}
}

// dashboardPanel is what TestTheDashboardsStagePanelNamesEveryStage reads
// of a Grafana panel.
type dashboardPanel struct {
	Title       string `json:"title"`
	Type        string `json:"type"`
	FieldConfig struct {
		Defaults struct {
			Mappings []struct {
				Options map[string]struct {
					Text  string `json:"text"`
					Color string `json:"color"`
				} `json:"options"`
			} `json:"mappings"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}
