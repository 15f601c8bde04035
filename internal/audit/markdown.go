package audit

import (
	"fmt"
	"io"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/render"
)

// Markdown writes the report for a ticket or a pull request: a summary table,
// one section per finding, then what was not checked.
func Markdown(w io.Writer, r Report) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "## lagscope check\n\n%s: **%s**.\n", capitalise(serversLine(r)), summaryLine(r))
	if r.RebuiltFrom != nil {
		fmt.Fprintf(b, "\n> %s\n", r.RebuiltFrom.MarkdownLine())
	}
	findings := r.Findings()
	if len(findings) > 0 {
		b.WriteString("\n| severity | check | objects |\n|---|---|---|\n")
		for _, f := range findings {
			fmt.Fprintf(b, "| %s | %s | %s |\n", mdCell(string(f.Severity)), mdCell(render.MarkdownCode(f.Check)), mdCell(strings.Join(f.Objects, ", ")))
		}
	}
	for _, f := range findings {
		fmt.Fprintf(b, "\n### %s: %s (%s)\n\n", quote.Escape(string(f.Severity)), quote.Escape(f.Check), mdCell(strings.Join(f.Objects, ", ")))
		fmt.Fprintf(b, "**Found:** %s\n\n**Why it matters:** %s\n\n**Fix:** %s\n", quote.Escape(f.Found), quote.Escape(f.Why), quote.Escape(f.Fix))
		if len(f.Run) > 0 {
			b.WriteString("\n" + quote.Block(escapeRun(f.Run)))
		}
	}
	for _, st := range []struct {
		status Status
		title  string
	}{{StatusNotChecked, "Not checked"}, {StatusNotApplicable, "Not applicable"}} {
		first := true
		for _, res := range r.Results {
			if res.Status != st.status {
				continue
			}
			if first {
				fmt.Fprintf(b, "\n%s:\n\n", st.title)
				first = false
			}
			fmt.Fprintf(b, "- %s: %s\n", render.MarkdownCode(res.Check), quote.Escape(res.Reason))
		}
	}
	var ok []string
	for _, res := range r.Results {
		if res.Status == StatusOK {
			ok = append(ok, render.MarkdownCode(res.Check))
		}
	}
	if len(ok) > 0 {
		fmt.Fprintf(b, "\nOK: %s.\n", strings.Join(ok, ", "))
	}
	b.WriteString("\nEach check is described in lagscope's docs/checks/<check>.md.\n")
	_, err := io.WriteString(w, quote.Sanitize(b.String(), "\n"))
	return err
}

// mdCell makes text safe inside a table cell (render.MarkdownCell).
func mdCell(s string) string { return render.MarkdownCell(s) }

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
