package quote

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Word quotes one shell word so that sh, bash and zsh read it back as exactly
// s, one literal argument: plain when it holds only characters no shell acts
// on, single-quoted otherwise, and as an ANSI-C string ($'...', bash and zsh)
// when it holds a rune that must not reach a terminal or is not valid UTF-8.
func Word(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safeShell(r) }) < 0 {
		return s
	}
	if Printable(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case printableRune(r):
			b.WriteRune(r)
		default:
			escapeRune(&b, r)
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// safeShell are the characters no POSIX shell gives a meaning to in a word.
func safeShell(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r)
}

// Command is a shell command line: the program and its arguments, each one
// word. The program name is lagscope's own text; every argument may come from
// anybody.
func Command(program string, args ...string) Statement {
	w := make([]string, 0, len(args)+1)
	w = append(w, Word(program))
	for _, a := range args {
		w = append(w, Word(a))
	}
	return Statement{Kind: ShellKind, Text: strings.Join(w, " ")}
}

// DumpPattern is a psql/pg_dump pattern (-t, -n) that matches exactly the
// table schema.name: both parts double-quoted, so that no character in them
// is a wildcard, a separator or folded to lower case.
func DumpPattern(schema, name string) string {
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	if schema == "" {
		return q(name)
	}
	return q(schema) + "." + q(name)
}
