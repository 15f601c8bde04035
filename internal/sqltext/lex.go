package sqltext

import "strings"

// kind is a token's class, as far as Normalize and Redact tell them apart.
type kind int

const (
	other   kind = iota // punctuation, operators, whitespace runs
	space               // whitespace
	comment             // -- to the end of the line, or /* ... */ (nested)
	word                // a key word or bare identifier
	quoted              // a quoted identifier "..." or U&"..."
	param               // a parameter $n
	literal             // a string, bit-string or dollar-quoted constant
	number              // a numeric constant
)

// token is one lexical unit of a statement's text: text[start:end].
type token struct {
	kind       kind
	start, end int
	// body is a literal's content without its quotes and prefix, escapes
	// left as written; open says it ran to the end of the text unterminated.
	body string
	open bool
	// escapes says body uses backslash escapes (E'...').
	escapes bool
}

// lex splits s into tokens covering it whole, in order.
func lex(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		t := next(s, i)
		out = append(out, t)
		i = t.end
	}
	return out
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 0x80 || (c|0x20) >= 'a' && (c|0x20) <= 'z'
}

func isIdentCont(c byte) bool { return isIdentStart(c) || c == '$' || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool { return strings.IndexByte(" \t\n\r\f\v", c) >= 0 }

// next reads the token that starts at s[i].
func next(s string, i int) token {
	c := s[i]
	switch {
	case isSpace(c):
		j := i
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		return token{kind: space, start: i, end: j}
	case c == '-' && i+1 < len(s) && s[i+1] == '-':
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return token{kind: comment, start: i, end: len(s)}
		}
		return token{kind: comment, start: i, end: i + j}
	case c == '/' && i+1 < len(s) && s[i+1] == '*':
		depth, j := 1, i+2
		for j < len(s) && depth > 0 {
			switch {
			case strings.HasPrefix(s[j:], "/*"):
				depth, j = depth+1, j+2
			case strings.HasPrefix(s[j:], "*/"):
				depth, j = depth-1, j+2
			default:
				j++
			}
		}
		return token{kind: comment, start: i, end: j}
	case c == '\'':
		return quotedString(s, i, i, false)
	case c == '"':
		return quotedIdent(s, i, i)
	case c == '$':
		return dollar(s, i)
	case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
		return numeric(s, i)
	case isIdentStart(c):
		j := i + 1
		for j < len(s) && isIdentCont(s[j]) {
			j++
		}
		w := s[i:j]
		switch {
		case j < len(s) && s[j] == '\'' && len(w) == 1 && strings.ContainsRune("eE", rune(w[0])):
			return quotedString(s, i, j, true)
		case j < len(s) && s[j] == '\'' && len(w) == 1 && strings.ContainsRune("bBxXnN", rune(w[0])):
			return quotedString(s, i, j, false)
		case (w == "u" || w == "U") && strings.HasPrefix(s[j:], "&'"):
			return quotedString(s, i, j+1, false)
		case (w == "u" || w == "U") && strings.HasPrefix(s[j:], `&"`):
			return quotedIdent(s, i, j+1)
		}
		return token{kind: word, start: i, end: j}
	}
	return token{kind: other, start: i, end: i + 1}
}

// quotedString reads a constant whose prefix starts at s[start] and whose
// opening quote is s[q]; escapes says backslashes escape (E'...').
func quotedString(s string, start, q int, escapes bool) token {
	j := q + 1
	for j < len(s) {
		switch {
		case escapes && s[j] == '\\':
			j += 2
			continue
		case s[j] == '\'' && j+1 < len(s) && s[j+1] == '\'':
			j += 2
			continue
		case s[j] == '\'':
			return token{kind: literal, start: start, end: j + 1, body: s[q+1 : j], escapes: escapes}
		}
		j++
	}
	return token{kind: literal, start: start, end: len(s), body: s[q+1:], open: true, escapes: escapes}
}

// quotedIdent reads a quoted identifier whose opening quote is s[q].
func quotedIdent(s string, start, q int) token {
	j := q + 1
	for j < len(s) {
		if s[j] == '"' {
			if j+1 < len(s) && s[j+1] == '"' {
				j += 2
				continue
			}
			return token{kind: quoted, start: start, end: j + 1}
		}
		j++
	}
	return token{kind: quoted, start: start, end: len(s)}
}

// dollar reads a parameter ($1), a dollar-quoted constant ($$...$$,
// $tag$...$tag$) or a lone '$'.
func dollar(s string, i int) token {
	j := i + 1
	if j < len(s) && isDigit(s[j]) {
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		return token{kind: param, start: i, end: j}
	}
	if j < len(s) && isIdentStart(s[j]) {
		for j < len(s) && isIdentCont(s[j]) && s[j] != '$' {
			j++
		}
	}
	if j >= len(s) || s[j] != '$' {
		return token{kind: other, start: i, end: i + 1}
	}
	tag := s[i : j+1]
	if k := strings.Index(s[j+1:], tag); k >= 0 {
		return token{kind: literal, start: i, end: j + 1 + k + len(tag), body: s[j+1 : j+1+k]}
	}
	return token{kind: literal, start: i, end: len(s), body: s[j+1:], open: true}
}

// numeric reads a numeric constant: decimal with fraction and exponent,
// 0x/0o/0b integers and '_' between digits (16+).
func numeric(s string, i int) token {
	j := i
	if s[j] == '0' && j+1 < len(s) && strings.IndexByte("xXoObB", s[j+1]) >= 0 && j+2 < len(s) && isHexDigit(s[j+2]) {
		j += 2
		for j < len(s) && (isHexDigit(s[j]) || s[j] == '_') {
			j++
		}
		return token{kind: number, start: i, end: j}
	}
	digits := func() {
		for j < len(s) && (isDigit(s[j]) || s[j] == '_' && j+1 < len(s) && isDigit(s[j+1])) {
			j++
		}
	}
	digits()
	if j < len(s) && s[j] == '.' && !(j+1 < len(s) && s[j+1] == '.') {
		j++
		digits()
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			j = k
			digits()
		}
	}
	return token{kind: number, start: i, end: j}
}

func isHexDigit(c byte) bool { return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'f' }
