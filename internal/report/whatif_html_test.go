package report

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
)

func TestWhatifHTMLDrawsEachRunAndTheSpread(t *testing.T) {
	runs := []model.Check{
		{Scenario: "network", Change: "link=2x", Version: "16.14", Verdict: "network", After: "network", Today: 5e6, Predicted: 10e6, Measured: 8.9e6, Ratio: 0.89, LimitedBy: "link", Model: "the link carried <the drain>"},
		{Scenario: "network", Change: "link=2x", Version: "16.14", Verdict: "network", After: "caught-up", Today: 5e6, Predicted: 10e6, Measured: 9e6, Ratio: 0.9, LimitedBy: "link", RanOut: true, DrainedS: 3.2},
	}
	cs := model.Summarise(runs)
	cs.Failed = []string{"run 3: the state came out walsender-starved"}
	var b strings.Builder
	if err := WhatifHTML(&b, cs, "lagscope lab whatif --change link=2x --runs 3 --html"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<svg", "link=2x: predicted and measured", "median <strong>0.90</strong>, from 0.89 to 0.90",
		"10.0 MB/s", "8.9 MB/s", "the backlog drained in 3.2 s", "run 3: the state came out walsender-starved",
		"the link carried &lt;the drain&gt;", "<code>lagscope lab whatif --change link=2x --runs 3 --html</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "src=") || strings.Contains(page, `href="http`) {
		t.Error("the page must be self-contained: no scripts, nothing fetched")
	}
	b.Reset()
	if err := WhatifHTML(&b, model.Checks{Failed: []string{"run 1: no prediction"}}, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no run gave a measurement") || !strings.Contains(b.String(), "run 1: no prediction") {
		t.Errorf("a page without runs must say so:\n%s", b.String())
	}
}
