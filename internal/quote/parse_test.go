package quote

import (
	"fmt"
	"strconv"
	"strings"
)

// parseIdent reads one identifier as PostgreSQL's scanner does (plain names
// fold to lower case; "..." doubles its quotes; U&"..." takes \XXXX, \+XXXXXX
// and \\) and fails unless it is the whole of s.
func parseIdent(s string) (string, error) {
	switch {
	case strings.HasPrefix(s, `U&"`):
		body, err := quoted(s[2:], '"')
		if err != nil {
			return "", err
		}
		return unicodeEscapes(body)
	case strings.HasPrefix(s, `"`):
		return quoted(s, '"')
	}
	if !plain(s) && (s == "" || !keywords[s]) {
		return "", fmt.Errorf("not a plain name: %q", s)
	}
	return s, nil
}

// parseLiteral reads one string constant ('...' or E'...') that is the whole of s.
func parseLiteral(s string) (string, error) {
	if strings.HasPrefix(s, "E'") {
		body, err := quotedEscape(s[1:])
		if err != nil {
			return "", err
		}
		return body, nil
	}
	return quoted(s, '\'')
}

// quoted reads q...q with doubled q inside, the whole of s.
func quoted(s string, q byte) (string, error) {
	if len(s) < 2 || s[0] != q || s[len(s)-1] != q {
		return "", fmt.Errorf("not quoted: %q", s)
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		if s[i] == q {
			if i+1 < len(s)-1 && s[i+1] == q {
				b.WriteByte(q)
				i++
				continue
			}
			return "", fmt.Errorf("lone quote inside %q", s)
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

// quotedEscape reads '...' with backslash escapes (an E” body), the whole of s.
func quotedEscape(s string) (string, error) {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", fmt.Errorf("not quoted: %q", s)
	}
	body := s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\'':
			if i+1 < len(body) && body[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return "", fmt.Errorf("lone quote in %q", s)
		case c == '\\':
			if i+1 >= len(body) {
				return "", fmt.Errorf("trailing backslash in %q", s)
			}
			i++
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[body[i]]
			if n == 0 {
				b.WriteByte(body[i])
				continue
			}
			if i+n >= len(body) {
				return "", fmt.Errorf("short escape in %q", s)
			}
			v, err := strconv.ParseUint(body[i+1:i+1+n], 16, 32)
			if err != nil {
				return "", err
			}
			b.WriteRune(rune(v))
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// unicodeEscapes decodes a U& body: \XXXX, \+XXXXXX, \\.
func unicodeEscapes(body string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			b.WriteByte(body[i])
			continue
		}
		if i+1 < len(body) && body[i+1] == '\\' {
			b.WriteByte('\\')
			i++
			continue
		}
		n, at := 4, i+1
		if at < len(body) && body[at] == '+' {
			n, at = 6, at+1
		}
		if at+n > len(body) {
			return "", fmt.Errorf("short escape in %q", body)
		}
		v, err := strconv.ParseUint(body[at:at+n], 16, 32)
		if err != nil {
			return "", err
		}
		b.WriteRune(rune(v))
		i = at + n - 1
	}
	return b.String(), nil
}
