package sqltext

import (
	"strings"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/quote"
)

// Hidden is what Redact puts in place of a password constant.
const Hidden = "'***'"

// Redact hides the passwords the statement text s spells:
//
//   - a constant that follows a word naming a password (PASSWORD, a
//     column or option such as user_password or "password"), with or
//     without '=' and comments between them: ALTER ROLE a PASSWORD'x',
//     PASSWORD /* c */ E'x', PASSWORD U&'x', PASSWORD $$x$$, OPTIONS
//     (password 'x'), SET password = 'x' — replaced with '***';
//   - a password in a connection string held in any other constant
//     (password= and sslpassword=, bare or quoted, a URI's user info), as
//     pg.Redact hides it, and any password lagscope was given
//     (pg.Remember);
//   - both of these in a comment's text.
//
// A constant cut unterminated is hidden to the end of the text. Everything
// else is kept as it is.
func Redact(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	secretNext := false // the last word named a password
	for i := 0; i < len(s); {
		t := next(s, i)
		if t.kind == word {
			// PASSWORD$$x$$ reads as one identifier to PostgreSQL (a
			// syntax error, and yet the text pg_stat_activity shows): the
			// part from the '$' on is read as a constant.
			if k := strings.IndexByte(s[t.start:t.end], '$'); k > 0 && strings.Contains(strings.ToLower(s[t.start:t.start+k]), "password") {
				t.end = t.start + k
			}
		}
		i = t.end
		text := s[t.start:t.end]
		switch t.kind {
		case space:
			b.WriteString(text)
			continue
		case comment:
			b.WriteString(redactComment(text))
			continue
		case literal:
			if secretNext {
				b.WriteString(Hidden)
			} else {
				b.WriteString(redactConstant(t, text))
			}
		case word, quoted:
			b.WriteString(text)
			secretNext = strings.Contains(strings.ToLower(text), "password")
			continue
		case other:
			b.WriteString(text)
			if text == "=" || text == ":" {
				continue // password = 'x', password := 'x'
			}
		default:
			b.WriteString(text)
		}
		secretNext = false
	}
	return b.String()
}

// redactComment hides the passwords in a comment's text read as a
// statement (/* password 'x' */) and as a connection string.
func redactComment(text string) string {
	open, body, end := text[:2], text[2:], ""
	if open == "/*" && strings.HasSuffix(body, "*/") {
		body, end = body[:len(body)-2], "*/"
	}
	return open + pg.Redact(Redact(body)) + end
}

// redactConstant returns the constant text (token t) with the passwords
// of a connection string it holds hidden, quoted anew; unchanged when it
// holds none.
func redactConstant(t token, text string) string {
	v := t.body
	switch {
	case strings.HasPrefix(text, "$"): // dollar-quoted: as written
	case t.escapes:
		v = strings.NewReplacer(`\\`, `\`, `\'`, `'`, `''`, `'`).Replace(v)
	default:
		v = strings.ReplaceAll(v, "''", "'")
	}
	r := pg.Redact(v)
	if r == v {
		return text
	}
	if lit, ok := quote.Literal(r); ok {
		if t.open {
			return strings.TrimSuffix(lit, "'") // cut as it was
		}
		return lit
	}
	return Hidden
}
