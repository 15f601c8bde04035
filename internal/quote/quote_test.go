package quote

import (
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile are names other people chose, as the review found them.
var hostile = []string{
	"orders", "Orders", "x'; DROP TABLE users; --", `a"b`, "x ENABLE; DROP TABLE users; --",
	"$(touch /tmp/pwned)", "`id`", "with space", "window", "position", "user", "left", "values",
	"recheck", "json_table", "système", "日本", "esc\x1b]52;c;aGVsbG8=\x07", "rtl\u202Eevil", "tab\there",
	"new\nline", `back\slash`, "", "_ok", "a1", "1a", "zero\u200bwidth", "emoji😀", "cr\r",
}

func TestIdentReadsBackAsTheName(t *testing.T) {
	for _, name := range hostile {
		s, ok := Ident(name)
		if !ok {
			t.Fatalf("Ident(%q) refused a valid name", name)
		}
		got, err := parseIdent(s)
		if err != nil || got != name {
			t.Errorf("Ident(%q) = %s, reads back %q (%v)", name, s, got, err)
		}
		if !Printable(s) {
			t.Errorf("Ident(%q) = %q holds an unprintable rune", name, s)
		}
	}
}

func TestIdentQuotesWhatQuoteIdentQuotes(t *testing.T) {
	for name, want := range map[string]string{
		"orders": "orders", "Orders": `"Orders"`, "window": `"window"`, "position": `"position"`,
		"user": `"user"`, "left": `"left"`, "values": `"values"`, "table": `"table"`, "name": "name",
		"index": "index", "a$b": `"a$b"`, "_x1": "_x1",
	} {
		if got, _ := Ident(name); got != want {
			t.Errorf("Ident(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestLiteralReadsBackAsTheText(t *testing.T) {
	for _, s := range hostile {
		q, ok := Literal(s)
		if !ok {
			t.Fatalf("Literal(%q) refused valid text", s)
		}
		got, err := parseLiteral(q)
		if err != nil || got != s {
			t.Errorf("Literal(%q) = %s, reads back %q (%v)", s, q, got, err)
		}
		if !Printable(q) {
			t.Errorf("Literal(%q) = %q holds an unprintable rune", s, q)
		}
	}
}

func TestInvalidUTF8WithholdsTheStatement(t *testing.T) {
	st := SQL("ALTER SUBSCRIPTION %I ENABLE;", "bad\xff")
	if st.Text != "" || st.Withheld == "" {
		t.Errorf("statement for an invalid name = %+v, want withheld", st)
	}
}

func TestSQLBuildsFromValues(t *testing.T) {
	for _, c := range []struct {
		name string
		st   Statement
		want string
	}{
		{"a subscription name that ends the statement stays one name",
			SQL("ALTER SUBSCRIPTION %I ENABLE;", "x ENABLE; DROP TABLE users; --"),
			`ALTER SUBSCRIPTION "x ENABLE; DROP TABLE users; --" ENABLE;`},
		{"a capitalised name keeps its case",
			SQL("ALTER SUBSCRIPTION %I ENABLE;", "Orders"), `ALTER SUBSCRIPTION "Orders" ENABLE;`},
		{"a literal doubles its quotes",
			SQL("SELECT pg_drop_replication_slot(%L);", "x'; DROP TABLE users; --"),
			`SELECT pg_drop_replication_slot('x''; DROP TABLE users; --');`},
		{"a column list quotes each column",
			SQL("ALTER TABLE %I ADD PRIMARY KEY (%I);", Name{"public", "position"}, []string{"id", "User"}),
			`ALTER TABLE public."position" ADD PRIMARY KEY (id, "User");`},
		{"numbers and raw fragments",
			SQL("ALTER SYSTEM SET %s = %d;", Raw("max_wal_senders"), 20), "ALTER SYSTEM SET max_wal_senders = 20;"},
		{"a percent sign", SQL("SELECT 100%%;"), "SELECT 100%;"},
	} {
		if c.st.Text != c.want || c.st.Withheld != "" {
			t.Errorf("%s: got %q (withheld %q), want %q", c.name, c.st.Text, c.st.Withheld, c.want)
		}
	}
}

func TestSQLWithholdsWhatItCannotBuild(t *testing.T) {
	for name, st := range map[string]Statement{
		"a plain string for %s":               SQL("SELECT %s;", "1; DROP TABLE x"),
		"an unknown verb":                     SQL("SELECT %v;", "x"),
		"too few arguments":                   SQL("SELECT %I, %I;", "a"),
		"too many arguments":                  SQL("SELECT %I;", "a", "b"),
		"a raw fragment with a line break":    SQL("SELECT %s;", Raw("1\n; DROP")),
		"an integer for %I":                   SQL("SELECT %I;", 3),
		"a template ending in a lone percent": SQL("SELECT 1%"),
	} {
		if st.Text != "" || st.Withheld == "" {
			t.Errorf("%s: got %+v, want withheld", name, st)
		}
	}
}

// bashWords runs a command line through bash and returns the words it read.
func bashWords(t testing.TB, line string) []string {
	t.Helper()
	out, err := exec.Command("bash", "-c", "f() { for a; do printf '%s\\0' \"$a\"; done; }; f "+line).Output()
	if err != nil {
		t.Fatalf("bash on %q: %v", line, err)
	}
	w := strings.Split(string(out), "\x00")
	return w[:len(w)-1]
}

func TestWordIsOneLiteralArgumentInBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	words := append(append([]string{}, hostile[1:]...), "bad\xff\xfe", "*", "~root", "a;b|c&d", "-t", "!x", "{a,b}")
	var line []string
	for _, w := range words {
		q := Word(w)
		if !Printable(q) {
			t.Errorf("Word(%q) = %q holds an unprintable rune", w, q)
		}
		line = append(line, q)
	}
	got := bashWords(t, strings.Join(line, " "))
	if len(got) != len(words) {
		t.Fatalf("bash read %d words from %d: %q", len(got), len(words), got)
	}
	for i := range words {
		if got[i] != words[i] {
			t.Errorf("Word(%q) = %s, bash read %q", words[i], line[i], got[i])
		}
	}
}

func TestDumpPatternQuotesBothParts(t *testing.T) {
	st := Command("pg_dump", "--schema-only", "--table="+DumpPattern("public", `We"ird $(x)`))
	want := `pg_dump --schema-only '--table="public"."We""ird $(x)"'`
	if st.Text != want {
		t.Errorf("got %s, want %s", st.Text, want)
	}
}

func FuzzIdentReadsBack(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, name string) {
		s, ok := Ident(name)
		if !utf8.ValidString(name) {
			if ok {
				t.Fatalf("Ident accepted invalid UTF-8 %q", name)
			}
			return
		}
		got, err := parseIdent(s)
		if err != nil || got != name || !Printable(s) {
			t.Fatalf("Ident(%q) = %q, reads back %q (%v)", name, s, got, err)
		}
	})
}

func FuzzLiteralReadsBack(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, ok := Literal(s)
		if !utf8.ValidString(s) {
			return
		}
		got, err := parseLiteral(q)
		if !ok || err != nil || got != s || !Printable(q) {
			t.Fatalf("Literal(%q) = %q, reads back %q (%v)", s, q, got, err)
		}
	})
}

func FuzzWordIsOneArgument(f *testing.F) {
	if _, err := exec.LookPath("bash"); err != nil {
		f.Skip("bash not installed")
	}
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			return // no argument can hold a NUL
		}
		q := Word(s)
		if !Printable(q) {
			t.Fatalf("Word(%q) = %q holds an unprintable rune", s, q)
		}
		if got := bashWords(t, q); len(got) != 1 || got[0] != s {
			t.Fatalf("Word(%q) = %s, bash read %q", s, q, got)
		}
	})
}

func TestAnAlternativeIsPrintedCommentedOut(t *testing.T) {
	steps := []Statement{
		SQL("ALTER SUBSCRIPTION %I ENABLE;", "s").OnServer("subscriber"),
		SQL("DROP SUBSCRIPTION %I;", "s").OnServer("subscriber").Or("only if it is abandoned"),
	}
	var lines []string
	for _, st := range steps {
		lines = append(lines, st.Lines()...)
	}
	want := []string{"-- on the subscriber", "ALTER SUBSCRIPTION s ENABLE;",
		"-- instead, only if it is abandoned (remove the comment mark to run it); on the subscriber", "-- DROP SUBSCRIPTION s;"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
