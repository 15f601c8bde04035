package quote

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape shows text from other people (an object's or a role's name, a lock
// holder's query, a server's error message, a field of a file read back) safely
// on a terminal, in Markdown or in HTML: every rune that Printable rejects is
// written as a visible escape, every other rune as it is.
//
//	\n \t \r            a line feed, a tab, a carriage return
//	\x1b \x7f           any other ASCII control (C0, DEL)
//	\xff                a byte that is not valid UTF-8 (\x80-\xff: never a rune)
//	\u202e \u0085       a rune up to U+FFFF: C1 controls, bidi controls,
//	                    zero-width and other format runes, separators, ...
//	\U000e0001          a rune above U+FFFF
//
// Each escape names exactly one rune or byte. The backslash itself is not
// escaped, on purpose: Escape is idempotent (it can guard a value where it is
// placed and the whole output again) and leaves printable text unchanged,
// including what the quoting layer printed (U&"a\001Bb", E'\x1B', the
// statements of a fix, which must be pasted as printed). The price is that the
// text `\x1b` and an ESC look alike once escaped: where the exact object
// matters, prose names it with Id or Qualified, whose quoting tells the two
// apart (`"a\x1b"` against U&"a\001B"). On text without a backslash Escape is
// injective.
func Escape(s string) string {
	return escape(s, "")
}

// Sanitize is Escape for a renderer's whole output, a belt over the escaping of
// each value: the runes in layout pass as they are (the renderer's own line
// feeds; the tabs gonum/plot writes between an SVG element's attributes), every
// other unprintable rune is escaped.
func Sanitize(out, layout string) string {
	return escape(out, layout)
}

// escape is Escape keeping the runes in keep.
func escape(s, keep string) string {
	clean := true
	for _, r := range s {
		if !printableRune(r) && !strings.ContainsRune(keep, r) {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case printableRune(r) || strings.ContainsRune(keep, r):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		default:
			escapeRune(&b, r)
		}
		i += n
	}
	return b.String()
}

// escapeRune writes r as a backslash escape that Escape, bash's $'...' and
// C read alike: \xNN below U+0080, \uNNNN, \UNNNNNNNN above U+FFFF.
func escapeRune(b *strings.Builder, r rune) {
	switch {
	case r < 0x80:
		fmt.Fprintf(b, `\x%02x`, r)
	case r <= 0xFFFF:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// Fields splits prose at its spaces, as strings.Fields does, for a wrapper to
// fold at, except that a double-quoted identifier (as Ident, Id and Qualified
// print one: "a  b", U&"x\0020y", with "" inside) is never split and keeps
// every space it holds: folding prose at these fields never changes the name
// it shows. A double quote without its closing quote is an ordinary character.
// Give it escaped text (Escape): its only spaces are then U+0020.
func Fields(s string) []string {
	var out []string
	start := -1 // start of the field being read, -1 between fields
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		case r == '"':
			if start < 0 {
				start = i
			}
			if end := closingQuote(s, i); end > 0 {
				i = end + 1
				continue
			}
		default:
			if start < 0 {
				start = i
			}
		}
		i += n
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// closingQuote is the index of the quote that closes the identifier opened by
// the quote at s[open] ("" inside is a quote of the name), or -1.
func closingQuote(s string, open int) int {
	for j := open + 1; j < len(s); j++ {
		if s[j] != '"' {
			continue
		}
		if j+1 < len(s) && s[j+1] == '"' {
			j++
			continue
		}
		return j
	}
	return -1
}
