package report

import (
	"bytes"
	"html"
	"os"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
)

// hostileAdvice is a report whose advice carries statements naming objects
// other people chose, longer than a line.
func hostileAdvice() Report {
	long := "x ENABLE; DROP TABLE users; -- " + strings.Repeat("padded out past eighty columns ", 3)
	run := []quote.Statement{
		quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", long).OnServer("subscriber"),
		quote.SQL("SELECT pg_drop_replication_slot(%L);", "x'); DROP TABLE ```users```; --").OnServer("publisher"),
	}
	p := Path{Slot: "s", Subscription: "sub"}
	p.Name, p.Headline = model.Stalled, "stopped"
	p.Helps = []model.Advice{{Key: model.KeyFixStop, Text: "enabling the subscription", Run: run}, {Key: model.KeyBandwidth, Text: "more bandwidth"}}
	p.NotHelps = []model.Advice{{Key: model.KeyAnySpeed, Text: "anything about speed"}}
	return Report{SchemaVersion: SchemaVersion, Tool: "lagscope", Paths: []Path{p}}
}

// Every statement of the advice is printed whole on a line of its own in
// text (never folded by the wrapper), in a fenced block in Markdown whose
// fence outruns the backticks in it, and in <pre><code> in HTML.
func TestAdviceStatementsArePrintedWhole(t *testing.T) {
	r := hostileAdvice()
	var stmts []string
	for _, st := range r.Paths[0].Helps[0].Run {
		stmts = append(stmts, st.Text)
	}
	lines := func(out string) []string { return strings.Split(out, "\n") }
	hasLine := func(out, want string) bool {
		for _, l := range lines(out) {
			if strings.TrimSpace(l) == want {
				return true
			}
		}
		return false
	}
	var text, md, h bytes.Buffer
	if err := Text(&text, r); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&h, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if !hasLine(text.String(), s) {
			t.Errorf("text: %q is not on a line of its own:\n%s", s, text.String())
		}
		if !hasLine(md.String(), s) {
			t.Errorf("markdown: %q is not on a line of its own:\n%s", s, md.String())
		}
		if !strings.Contains(h.String(), html.EscapeString(s)) {
			t.Errorf("html: %q missing", s)
		}
	}
	if !strings.Contains(md.String(), "  ````sql\n  -- on the subscriber\n") || strings.Contains(md.String(), "`ALTER") {
		t.Errorf("markdown: statements not in a fenced block that outruns their backticks:\n%s", md.String())
	}
	if !strings.Contains(h.String(), "<pre class=\"run\"><code>-- on the subscriber\n") {
		t.Errorf("html: statements not in <pre><code>:\n%s", h.String())
	}
}

// A report of schema 7 and before wrote each remedy as a string: it still
// reads, and writes again as schema 8's objects.
func TestAdviceOfAnOlderSchemaReadsAsText(t *testing.T) {
	f, err := os.Open("testdata/network-pg16-schema4.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	h := r.Paths[0].Helps
	if len(h) == 0 || !strings.HasPrefix(h[0].Text, "more bandwidth") || h[0].Run != nil {
		t.Fatalf("helps %+v, want the saved texts", h)
	}
	var out bytes.Buffer
	if err := JSON(&out, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"text": "more bandwidth`) {
		t.Errorf("written again, the advice is not an object with its text")
	}
	back, err := Read(&out)
	if err != nil || back.Paths[0].Helps[0].Text != h[0].Text {
		t.Errorf("read back %v: %+v", err, back.Paths[0].Helps)
	}
}
