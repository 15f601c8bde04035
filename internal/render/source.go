package render

import (
	"strconv"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/quote"
)

// Source is the file a report was rebuilt from, offline (report --input,
// diagnose --from-samples, check --input and --from-snapshots); a report
// read live from servers has none. Every renderer says it in its header:
// advice rebuilt from a file may be old, or made by someone else.
type Source struct {
	// File is the path as given on the command line ("standard input"
	// for -).
	File string `json:"file"`
	// RecordedAt is when the file's data was read from the servers.
	RecordedAt time.Time `json:"recorded_at"`
}

// Line is the header line: "rebuilt from FILE recorded at T", the name
// quoted when it holds what a terminal would act on.
func (s *Source) Line() string {
	name := s.File
	if !quote.Printable(name) {
		name = strconv.QuoteToASCII(name)
	}
	return "rebuilt from " + name + " recorded at " + s.RecordedAt.UTC().Format("2006-01-02 15:04:05 UTC") +
		": not a live reading; check the servers before running what it advises"
}

// MarkdownLine is Line with Markdown's punctuation escaped.
func (s *Source) MarkdownLine() string {
	var b strings.Builder
	for _, r := range s.Line() {
		if strings.ContainsRune("\\`*_[]<>#|~!()", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
