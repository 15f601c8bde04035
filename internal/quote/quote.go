package quote

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ident quotes a name as PostgreSQL's quote_ident does: plain when it is a
// lower-case name that no supported version reserves, double-quoted otherwise.
// A name holding a rune that must not reach a terminal (a control, format or
// separator rune) is written as a Unicode-escape identifier (U&"..."), which
// PostgreSQL reads back to the same name whatever standard_conforming_strings
// is. ok is false for a name that is not valid UTF-8: no identifier names it.
func Ident(name string) (s string, ok bool) {
	if !utf8.ValidString(name) {
		return "", false
	}
	if plain(name) {
		return name, true
	}
	if Printable(name) {
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`, true
	}
	var b strings.Builder
	b.WriteString(`U&"`)
	for _, r := range name {
		switch {
		case r == '"':
			b.WriteString(`""`)
		case r == '\\':
			b.WriteString(`\\`)
		case printableRune(r):
			b.WriteRune(r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\%04X`, r)
		default:
			fmt.Fprintf(&b, `\+%06X`, r)
		}
	}
	b.WriteByte('"')
	return b.String(), true
}

// plain is quote_ident's test: [a-z_][a-z0-9_]* and not a key word that some
// supported version does not class as unreserved.
func plain(name string) bool {
	if name == "" || !(name[0] >= 'a' && name[0] <= 'z' || name[0] == '_') {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return !keywords[name]
}

// Literal quotes a string constant. A plain constant doubles its quotes; one
// holding a backslash or a rune that must not reach a terminal is an escape
// string (E'...'), which reads the same whatever standard_conforming_strings
// is. ok is false for text that is not valid UTF-8.
func Literal(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	if Printable(s) && !strings.Contains(s, `\`) {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'", true
	}
	var b strings.Builder
	b.WriteString("E'")
	for _, r := range s {
		switch {
		case r == '\'':
			b.WriteString(`''`)
		case r == '\\':
			b.WriteString(`\\`)
		case printableRune(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02X`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			fmt.Fprintf(&b, `\U%08X`, r)
		}
	}
	b.WriteByte('\'')
	return b.String(), true
}

// Printable reports whether s can reach a terminal as it is: valid UTF-8 with
// no control, format (bidi overrides, zero-width), separator or private-use
// rune, and no tab.
func Printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !printableRune(r) {
			return false
		}
	}
	return true
}

// printableRune is false for runes a terminal acts on or a reader cannot see:
// C0/C1 controls and DEL, format runes (Cf: U+202E and the other bidi controls,
// zero-width joiners), line and paragraph separators, private use, surrogates,
// unassigned and non-characters.
func printableRune(r rune) bool {
	if r == ' ' {
		return true
	}
	if r == utf8.RuneError || r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE {
		return false
	}
	return unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r)
}
