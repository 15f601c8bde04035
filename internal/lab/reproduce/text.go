package reproduce

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Text writes the table for a terminal: per section the measurements beside
// the seed's figures, then the ratios, notes, caveats and failures.
func Text(w io.Writer, t *Table) error {
	fmt.Fprintf(w, "lab reproduce %s: seed %s on PostgreSQL %s, %d run(s)%s\n", t.Experiment, t.Seed, t.ServerVersion, t.Runs, quickNote(t.Quick))
	if t.Command != "" {
		fmt.Fprintf(w, "command: %s\n", t.Command)
	}
	for _, s := range t.Sections {
		fmt.Fprintf(w, "\n%s\n", s.Title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		if len(s.Rows) > 0 {
			fmt.Fprintln(tw, "  measurement\tseed\there (median)\tspread\tunit")
			for _, r := range s.Rows {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Name, dash(r.Seed), num(r.Median), spread(r), r.Unit)
			}
		}
		if len(s.Ratios) > 0 {
			fmt.Fprintln(tw, "  ratio\tseed\there\t\t")
			for _, r := range s.Ratios {
				fmt.Fprintf(tw, "  %s\t%sx\t%sx\t%s\t\n", r.Name, num(r.Seed), num(r.Measured), r.Verdict)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
	list(w, "Not reproduced faithfully on this machine", t.Caveats)
	list(w, "FAILED", t.Failures)
	return nil
}

func list(w io.Writer, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
	for _, c := range items {
		fmt.Fprintf(w, "  - %s\n", c)
	}
}

func quickNote(q bool) string {
	if q {
		return " (--quick: small tables, short phases; directions only)"
	}
	return ""
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// num prints a value with three significant digits or so.
func num(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "-"
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
	}
}

func spread(r Row) string {
	if len(r.Runs) < 2 {
		return "1 run"
	}
	return fmt.Sprintf("%s-%s (%d)", num(r.Min), num(r.Max), len(r.Runs))
}
