package sqltext

import (
	"strconv"
	"strings"
)

// Normalize replaces every constant in the statement text s — '...',
// E'...', U&'...', B'...', X'...', N'...', $$...$$ and $tag$...$tag$,
// numbers — with a placeholder $n, numbered after the highest parameter
// the text already holds, as pg_stat_statements shows a statement.
// Comments, identifiers and operators are kept as they are. A constant
// left unterminated by a cut runs to the end of the text and is replaced
// whole. Normalize is idempotent, and what it returns is the same whatever
// the constants held.
func Normalize(s string) string {
	toks := lex(s)
	n := 0
	for _, t := range toks {
		if t.kind == param {
			if v, err := strconv.Atoi(s[t.start+1 : t.end]); err == nil && v > n && v < 1<<30 {
				n = v
			}
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	out := []byte{} // the last byte written, to keep placeholders apart
	for _, t := range toks {
		if t.kind != literal && t.kind != number {
			b.WriteString(s[t.start:t.end])
			out = append(out[:0], s[t.end-1])
			continue
		}
		n++
		if len(out) > 0 && isIdentCont(out[0]) {
			// "$" then $1 would read back as $$ (a dollar quote), "x"
			// then $1 as the identifier x$1: keep them apart.
			b.WriteByte(' ')
		}
		p := "$" + strconv.Itoa(n)
		b.WriteString(p)
		out = append(out[:0], p[len(p)-1])
	}
	return b.String()
}
