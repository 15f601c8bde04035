package sqltext

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/quote"
)

func TestNormalize(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"a string constant and a number become placeholders",
			"UPDATE patients SET ssn = '123-45-6789' WHERE id = 7", "UPDATE patients SET ssn = $1 WHERE id = $2"},
		{"a doubled quote stays inside its constant",
			"SELECT 'it''s' || x", "SELECT $1 || x"},
		{"an escape string's backslash-quote stays inside it",
			`SELECT E'a\'b', 1`, "SELECT $1, $2"},
		{"a Unicode-escape string is one constant",
			`SELECT U&'d\0061t' UESCAPE '!'`, "SELECT $1 UESCAPE $2"},
		{"bit strings and national strings are constants",
			"SELECT B'1010', X'1F', N'abc'", "SELECT $1, $2, $3"},
		{"dollar-quoted constants are constants, tagged or not",
			"SELECT $$a 'b' c$$, $fn$ x $$ y $fn$", "SELECT $1, $2"},
		{"numbers in every form are constants",
			"SELECT 1.5e-3, .5, 0x1F, 1_000, 42.", "SELECT $1, $2, $3, $4, $5"},
		{"placeholders are numbered after the statement's own parameters",
			"SELECT * FROM t WHERE a = $2 AND b = 'x'", "SELECT * FROM t WHERE a = $2 AND b = $3"},
		{"digits inside an identifier stay",
			"SELECT col1, t2.x$1 FROM t2", "SELECT col1, t2.x$1 FROM t2"},
		{"quoted identifiers and comments are kept",
			`SELECT "it's" /* don't */ FROM t -- it's 'x'` + "\nWHERE a = 'x'", `SELECT "it's" /* don't */ FROM t -- it's 'x'` + "\nWHERE a = $1"},
		{"a constant cut unterminated runs to the end",
			"INSERT INTO notes VALUES ('Dear Dr. Smith, the patient", "INSERT INTO notes VALUES ($1"},
		{"a dollar-quoted body cut unterminated runs to the end",
			"DO $$ BEGIN PERFORM 'secret'", "DO $1"},
		{"a lone dollar before a constant is kept apart from the placeholder",
			"SELECT $'x'", "SELECT $ $1"},
		{"a statement without constants is unchanged",
			"SELECT a FROM t WHERE b = $1", "SELECT a FROM t WHERE b = $1"},
		{"an array slice keeps its colon",
			"SELECT a[1:2]", "SELECT a[$1:$2]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Normalize(c.in)
			if got != c.want {
				t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
			}
			if again := Normalize(got); again != got {
				t.Errorf("Normalize is not idempotent: %q then %q", got, again)
			}
		})
	}
}

// contexts are statement texts with one constant's place marked %s: the
// constant is put there in every form it may take.
var contexts = []string{
	"UPDATE patients SET ssn = %s WHERE id = 7",
	"SELECT %s",
	"INSERT INTO t VALUES (1, %s, $1)",
	"SELECT a FROM t WHERE b = %s -- note",
	"SELECT a /* c */ FROM t WHERE b IN (%s, 'y')",
	"SELECT a.b||%s||c",
	"SELECT %s::date + interval '1 day'",
}

// forms writes v as each kind of string constant PostgreSQL reads.
func forms(v string) []string {
	out := []string{}
	if lit, ok := quote.Literal(v); ok {
		out = append(out, lit)
	}
	out = append(out, "'"+strings.ReplaceAll(v, "'", "''")+"'")
	out = append(out, "E'"+strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v)+"'")
	if !strings.Contains(v, "$q$") {
		out = append(out, "$q$"+v+"$q$")
	}
	if !strings.Contains(v, "$$") && !strings.HasSuffix(v, "$") {
		out = append(out, "$$"+v+"$$")
	}
	return out
}

// Whatever a constant holds, Normalize's text is the one it gives for any
// other constant in its place: nothing of the constant's content is left.
// On any text it never panics and is idempotent.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"123-45-6789", "it's", `a\b`, "$$", "x'; DROP TABLE t; --", "*/ 'y' /*", "1e5", ""} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, v string, at uint8) {
		ctx := contexts[int(at)%len(contexts)]
		want := Normalize(strings.Replace(ctx, "%s", "'x'", 1))
		for _, c := range forms(v) {
			q := strings.Replace(ctx, "%s", c, 1)
			if got := Normalize(q); got != want {
				t.Fatalf("Normalize(%q) = %q, want %q as for any other constant", q, got, want)
			}
		}
		for _, q := range []string{v, strings.Replace(ctx, "%s", v, 1)} {
			once := Normalize(q)
			if twice := Normalize(once); twice != once {
				t.Fatalf("not idempotent: %q gave %q, then %q", q, once, twice)
			}
			for _, tk := range lex(once) {
				if tk.kind == literal || tk.kind == number {
					t.Fatalf("Normalize(%q) = %q still holds constant %q", q, once, once[tk.start:tk.end])
				}
			}
		}
	})
}
