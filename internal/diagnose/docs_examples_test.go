package diagnose

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// recordingRef is a recording named in a docs page, with or without its
// directory.
var recordingRef = regexp.MustCompile("`(?:internal/classify/testdata/)?([a-z0-9.-]+)\\.json`")

// TestVerdictPageExamplesAreWhatTheBinaryPrints checks every example block in
// docs/verdicts/*.md against the text report of the recordings the page
// names before it (since the previous block): each line of the block must
// be a line of that report, in the report's order (a block may leave lines
// out, never change one). The examples cannot drift from the binary ("0 kB"
// where it prints "0 B", "about 9.0 s" where it prints "at least 9.0 s").
func TestVerdictPageExamplesAreWhatTheBinaryPrints(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("..", "..", "docs", "verdicts", "*.md"))
	if len(pages) < 10 {
		t.Fatalf("found %d verdict pages", len(pages))
	}
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		example := section(doc, "## Example")
		var refs, out []string
		inBlock, block := false, []string(nil)
		for _, line := range strings.Split(example, "\n") {
			switch {
			case strings.HasPrefix(line, "```") && !inBlock:
				inBlock, block = true, nil
			case strings.HasPrefix(line, "```"):
				inBlock = false
				if len(refs) == 0 {
					t.Errorf("%s: an example block names no recording before it", filepath.Base(page))
					out = append(out, block...)
				} else if *update {
					out = append(out, regenerate(t, strings.TrimSuffix(filepath.Base(page), ".md"), refs, block)...)
				} else if why := matchesOne(refs, block); why != "" {
					t.Errorf("%s: %s (go test ./internal/diagnose -run TestVerdictPageExamples -update rewrites the blocks)", filepath.Base(page), why)
				}
				checked++
				refs = nil
			case inBlock:
				block = append(block, strings.TrimRight(line, " "))
				continue
			default:
				for _, m := range recordingRef.FindAllStringSubmatch(line, -1) {
					refs = append(refs, m[1])
				}
			}
			out = append(out, line)
		}
		if *update && example != "" {
			if err := os.WriteFile(page, []byte(strings.Replace(doc, example, strings.Join(out, "\n"), 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if checked < 10 {
		t.Errorf("checked %d example blocks, want the pages' examples (10 or more)", checked)
	}
}

// section is the text of the markdown section that starts with heading,
// up to the next heading of that level.
func section(doc, heading string) string {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return ""
	}
	rest := doc[i+len(heading)+2:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// matchesOne says why block is not an excerpt of the text report of any of
// the recordings ("" when it is one).
func matchesOne(refs, block []string) string {
	var why []string
	for _, name := range refs {
		text, err := renderText(name)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		if line := firstMissing(text, block); line == "" {
			return ""
		} else {
			why = append(why, name+": the line "+strings.TrimSpace(line)+" is not in its report (in that order); its report is:\n"+text)
		}
	}
	return strings.Join(why, "\n")
}

// firstMissing is the first line of block that does not follow the ones
// before it in text ("" when block is an excerpt of text).
func firstMissing(text string, block []string) string {
	lines := strings.Split(text, "\n")
	at := 0
	for _, want := range block {
		if strings.TrimSpace(want) == "" || strings.TrimSpace(want) == "..." {
			continue
		}
		found := false
		for ; at < len(lines); at++ {
			if strings.TrimRight(lines[at], " ") == want {
				found, at = true, at+1
				break
			}
		}
		if !found {
			return want
		}
	}
	return ""
}

// renderText is the text report of a recording in classify's testdata.
func renderText(name string) (string, error) {
	b, err := os.ReadFile(filepath.Join("..", "classify", "testdata", name+".json"))
	if err != nil {
		return "", err
	}
	var rec sample.Recording
	if err := json.Unmarshal(b, &rec); err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := report.Render(&out, Build(&rec, nil, 20), "text"); err != nil {
		return "", err
	}
	return out.String(), nil
}

// regenerate is block rewritten from the report of the recording it
// matches best: the same sections (verdict and headline, limit, lag,
// rates, stages, evidence, ...) of the path that has the page's verdict
// (else the first path), as the binary prints them now.
func regenerate(t *testing.T, verdict string, refs, block []string) []string {
	best, bestN, bestText := "", -1, ""
	for _, name := range refs {
		text, err := renderText(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if n := matched(text, block); n > bestN {
			best, bestN, bestText = name, n, text
		}
	}
	if best == "" {
		return block
	}
	keep := map[string]bool{}
	for _, l := range sections(block) {
		keep[l.key] = true
	}
	lines := sections(strings.Split(pathOf(bestText, verdict), "\n"))
	var out []string
	for _, l := range lines {
		if keep[l.key] {
			out = append(out, l.text)
		}
	}
	return out
}

// matched counts the lines of block that are lines of text.
func matched(text string, block []string) int {
	have := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		have[strings.TrimRight(l, " ")] = true
	}
	n := 0
	for _, l := range block {
		if have[l] {
			n++
		}
	}
	return n
}

// pathOf is the part of a text report for the path with verdict (the first
// path when none has it), from its header line on.
func pathOf(text, verdict string) string {
	parts := strings.Split(text, "\nslot ")
	if len(parts) < 2 {
		return text
	}
	for _, p := range parts[1:] {
		if strings.Contains(p, "  VERDICT  "+verdict+" ") {
			return "slot " + strings.TrimRight(p, "\n")
		}
	}
	return "slot " + strings.TrimRight(parts[1], "\n")
}

// keyed is a report line with the section it belongs to.
type keyed struct{ key, text string }

// sections keys each line of a text report by its section: a line indented
// by two spaces starts one (VERDICT and the headline and cause after it,
// limit, lag, rates, stages, evidence, helps, ...), deeper lines continue
// it, an unindented line is the path's header.
func sections(lines []string) []keyed {
	var out []keyed
	key := ""
	for _, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		indent := len(l) - len(trimmed)
		switch {
		case trimmed == "":
			continue
		case indent == 0:
			key = "header"
		case indent == 2:
			word := strings.Fields(trimmed)[0]
			switch word {
			case "VERDICT", "limit:", "lag", "rates", "stages", "evidence", "helps", "does", "caveats", "setup", "next":
				key = word
			default:
				key = "headline" // or the cause after it
			}
		}
		out = append(out, keyed{key, strings.TrimRight(l, " ")})
	}
	return out
}
