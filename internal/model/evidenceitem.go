package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// EvidenceKey names a kind of evidence line, so that code (and a JSON
// consumer) can tell which line an item is without reading its text:
// evidencekeys.go lists one constant per kind of line the classifier
// writes. The zero value is an item read back from a report saved before
// schema 9, which wrote the text alone.
type EvidenceKey string

// Figures are the named numbers an evidence item (or a remedy) states, in
// the units their names end in: "_share" a fraction 0..1, "_bytes" bytes,
// "_bytes_per_s" bytes a second, "_s" seconds, a bare count otherwise. A
// figure that was not measured is absent, never -1.
type Figures map[string]float64

// String writes the figures as "name=value" pairs, by name: how a test or
// a log message shows them.
func (f Figures) String() string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(f)) {
		out = append(out, fmt.Sprintf("%s=%g", name, f[name]))
	}
	return strings.Join(out, " ")
}

// Evidence is one line of a verdict's evidence: which kind of line it is
// (Key), the line as the report says it (Text, prose made once, where the
// classifier decides) and the figures it states. Written as {"key",
// "text", "figures"} since schema 9; a string before, which reads back as
// its text with no key.
type Evidence struct {
	// Key names the kind of line ("" read back from a report before
	// schema 9).
	Key EvidenceKey `json:"key,omitempty" jsonschema:"required"`
	// Text is the line as the report says it.
	Text string `json:"text" jsonschema:"required"`
	// Figures are the numbers the line states (nil: none).
	Figures Figures `json:"figures,omitempty"`
}

// UnmarshalJSON reads an evidence item as written since schema 9 (an
// object) or before it (its text alone, with no key).
func (e *Evidence) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err == nil {
		*e = Evidence{Text: text}
		return nil
	}
	type plain Evidence
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("evidence: %w", err)
	}
	*e = Evidence(p)
	return nil
}

// EvidenceTexts are the texts of evidence items, in their order (nil for
// none).
func EvidenceTexts(ev []Evidence) []string {
	var out []string
	for _, e := range ev {
		out = append(out, e.Text)
	}
	return out
}

// item is an evidence line of kind key saying text, with figs less the
// figures that were not measured (negative or not finite; nil when none is
// left).
func item(key EvidenceKey, text string, figs Figures) Evidence {
	var kept Figures
	for name, v := range figs {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if kept == nil {
			kept = Figures{}
		}
		kept[name] = v
	}
	return Evidence{Key: key, Text: text, Figures: kept}
}

// said is item with no figures.
func said(key EvidenceKey, text string) Evidence { return Evidence{Key: key, Text: text} }

// withoutEmpty is ev less the items with no text (lines left out).
func withoutEmpty(ev []Evidence) []Evidence {
	var out []Evidence
	for _, e := range ev {
		if e.Text != "" {
			out = append(out, e)
		}
	}
	return out
}
