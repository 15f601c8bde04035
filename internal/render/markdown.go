package render

import (
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// MarkdownCell is text from other people for a Markdown table cell: escaped
// (quote.Escape) and its '|' written as '\|', which GitHub's tables read as a
// '|' of the cell, inside a code span too.
func MarkdownCell(s string) string { return strings.ReplaceAll(quote.Escape(s), "|", `\|`) }

// MarkdownCode is text from other people as a Markdown inline code span:
// escaped, between backtick fences one longer than any run of backticks in it
// (padded with a space where it starts or ends with a backtick or a space), so
// that nothing in it ends the span.
func MarkdownCode(s string) string {
	s = quote.Escape(s)
	fence := strings.Repeat("`", quote.LongestBacktickRun(s)+1)
	if s == "" || s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' && s[len(s)-1] == ' ' {
		s = " " + s + " "
	}
	return fence + s + fence
}
