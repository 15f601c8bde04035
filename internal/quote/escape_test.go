package quote

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscapeShowsEveryUnprintableRuneAsAVisibleEscape(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"printable text is unchanged", "orders système 日本 emoji😀 a\"b 'x'", "orders système 日本 emoji😀 a\"b 'x'"},
		{"a screen clear is written out", "x\x1b[2Jy", `x\x1b[2Jy`},
		{"an OSC 52 clipboard write is written out", "q\x1b]52;c;aGVsbG8=\x07", `q\x1b]52;c;aGVsbG8=\x07`},
		{"a right-to-left override is written out", "rtl\u202Eevil", `rtl\u202eevil`},
		{"every bidi control is written out", "\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"a newline, a tab and a carriage return inside a value", "a\nb\tc\rd", `a\nb\tc\rd`},
		{"DEL and NUL", "\x7f\x00", `\x7f\x00`},
		{"a C1 control is a rune, not a byte", "\u0085\u009b", `\u0085\u009b`},
		{"zero-width runes and separators", "a\u200bb\u200dc\u2028d\u2029e\ufeff", `a\u200bb\u200dc\u2028d\u2029e\ufeff`},
		{"a non-breaking space is not a space", "a\u00a0b", `a\u00a0b`},
		{"bytes that are not UTF-8 are written as bytes", "bad\xff\xfe", `bad\xff\xfe`},
		{"a tag rune above U+FFFF", "a\U000E0041", `a\U000e0041`},
		{"the backslash is not escaped", `back\slash \x1b`, `back\slash \x1b`},
		{"what the quoting layer printed passes unchanged", `U&"a\001Bb" E'\x1B'`, `U&"a\001Bb" E'\x1B'`},
	} {
		got := Escape(c.in)
		if got != c.want {
			t.Errorf("%s: Escape(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
		if !Printable(got) {
			t.Errorf("%s: Escape(%q) = %q holds an unprintable rune", c.name, c.in, got)
		}
	}
}

func TestSanitizeKeepsTheRenderersLayout(t *testing.T) {
	in := "line one\nname \x1b[2J\u202e\tend\n"
	if got, want := Sanitize(in, "\n"), "line one\nname \\x1b[2J\\u202e\\tend\n"; got != want {
		t.Errorf("Sanitize keeping line feeds = %q, want %q", got, want)
	}
	if got, want := Sanitize(in, "\n\t"), "line one\nname \\x1b[2J\\u202e\tend\n"; got != want {
		t.Errorf("Sanitize keeping line feeds and tabs = %q, want %q", got, want)
	}
}

func TestFieldsNeverSplitsAQuotedIdentifier(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"plain prose splits at runs of spaces", "a  b c ", []string{"a", "b", "c"}},
		{"a quoted name keeps its spaces", `table public."my  big table", ok`, []string{"table", `public."my  big table",`, "ok"}},
		{"a doubled quote stays inside the name", `"a"" b" c`, []string{`"a"" b"`, "c"}},
		{"a Unicode-escape identifier is one field", `U&"a \001B b" x`, []string{`U&"a \001B b"`, "x"}},
		{"two quoted names", `"a b" and "c d"`, []string{`"a b"`, "and", `"c d"`}},
		{"a quote without its end is an ordinary character", `a 5" disk`, []string{"a", `5"`, "disk"}},
		{"nothing", "   ", nil},
	} {
		if got := Fields(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Fields(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// unescape reads Escape's escapes back (the test's decoder: Escape is
// injective on text without a backslash).
func unescape(t *testing.T, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil {
				t.Fatalf("bad escape in %q: %v", s, err)
			}
			if s[i] == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i += n
		default:
			t.Fatalf("unknown escape \\%c in %q", s[i], s)
		}
	}
	return b.String()
}

func FuzzEscapeIsPrintableAndUnambiguous(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Add("bad\xff\xfe\xc3")
	f.Add("\U000E0041\u2066\u0085\x7f")
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !Printable(e) {
			t.Fatalf("Escape(%q) = %q holds an unprintable rune", s, e)
		}
		if Escape(e) != e {
			t.Fatalf("Escape is not idempotent on %q: %q then %q", s, e, Escape(e))
		}
		if Printable(s) && e != s {
			t.Fatalf("Escape changed printable text %q into %q", s, e)
		}
		if !strings.Contains(s, `\`) {
			if back := unescape(t, e); back != s {
				t.Fatalf("Escape(%q) = %q reads back as %q", s, e, back)
			}
		}
		if k := Sanitize(s, "\n"); !Printable(strings.ReplaceAll(k, "\n", "")) || !utf8.ValidString(k) {
			t.Fatalf("Sanitize(%q) = %q holds an unprintable rune besides line feeds", s, k)
		}
	})
}
