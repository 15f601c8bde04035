package reproduce

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes the table as GitHub markdown (docs/reproduction.md is made
// of these).
func Markdown(w io.Writer, t *Table) error {
	fmt.Fprintf(w, "### %s (seed %s), PostgreSQL %s, %d run(s)%s\n\n", t.Experiment, t.Seed, t.ServerVersion, t.Runs, quickNote(t.Quick))
	if t.Command != "" {
		fmt.Fprintf(w, "`%s`\n\n", t.Command)
	}
	for _, s := range t.Sections {
		fmt.Fprintf(w, "**%s**\n\n", s.Title)
		if len(s.Rows) > 0 {
			fmt.Fprintln(w, "| measurement | seed | here (median) | spread (min-max, runs) | unit |")
			fmt.Fprintln(w, "|---|---|---|---|---|")
			for _, r := range s.Rows {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", cell(r.Name), cell(dash(r.Seed)), num(r.Median), spread(r), r.Unit)
			}
			fmt.Fprintln(w)
		}
		if len(s.Ratios) > 0 {
			fmt.Fprintln(w, "| ratio | seed | here | |")
			fmt.Fprintln(w, "|---|---|---|---|")
			for _, r := range s.Ratios {
				fmt.Fprintf(w, "| %s | %sx | %sx | %s |\n", cell(r.Name), num(r.Seed), num(r.Measured), cell(r.Verdict))
			}
			fmt.Fprintln(w)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
		if len(s.Notes) > 0 {
			fmt.Fprintln(w)
		}
	}
	mdList(w, "Not reproduced faithfully on this machine", t.Caveats)
	mdList(w, "FAILED", t.Failures)
	return nil
}

func mdList(w io.Writer, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n\n", title)
	for _, c := range items {
		fmt.Fprintf(w, "- %s\n", c)
	}
	fmt.Fprintln(w)
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
