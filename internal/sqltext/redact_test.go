package sqltext

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"a role's password constant is hidden",
			"ALTER ROLE app PASSWORD 'hunter2'", "ALTER ROLE app PASSWORD '***'"},
		{"the keyword's case does not matter and other constants stay",
			"create role a login encrypted password 'x''y' valid until 'infinity'", "create role a login encrypted password '***' valid until 'infinity'"},
		{"a constant with no space after PASSWORD is hidden",
			"ALTER ROLE app PASSWORD'hunter2'", "ALTER ROLE app PASSWORD'***'"},
		{"a comment between PASSWORD and the constant does not keep it",
			"ALTER ROLE app PASSWORD /**/ 'hunter2'", "ALTER ROLE app PASSWORD /**/ '***'"},
		{"a Unicode-escape constant is hidden",
			`ALTER ROLE app PASSWORD U&'hun\0074er2'`, "ALTER ROLE app PASSWORD '***'"},
		{"a constant cut at 200 characters is hidden to its end",
			"ALTER USER app WITH PASSWORD 'abcdef", "ALTER USER app WITH PASSWORD '***'"},
		{"an escape string is hidden",
			`ALTER ROLE app PASSWORD E'a\'b' LOGIN`, "ALTER ROLE app PASSWORD '***' LOGIN"},
		{"a dollar-quoted constant is hidden",
			"ALTER ROLE app PASSWORD $q$secret$q$", "ALTER ROLE app PASSWORD '***'"},
		{"a user mapping's password option is hidden",
			"CREATE USER MAPPING FOR bob SERVER s OPTIONS (user 'bob', password 'hunter2')", "CREATE USER MAPPING FOR bob SERVER s OPTIONS (user 'bob', password '***')"},
		{"a password column set to a constant is hidden",
			`UPDATE users SET "password" = 'hunter2', pw_hint = 'x'`, `UPDATE users SET "password" = '***', pw_hint = 'x'`},
		{"a connection string's password is hidden",
			"CREATE SUBSCRIPTION s CONNECTION 'host=p password=secret' PUBLICATION p", "CREATE SUBSCRIPTION s CONNECTION 'host=p password=xxxxx' PUBLICATION p"},
		{"a connection string's sslpassword is hidden",
			"CREATE SUBSCRIPTION s CONNECTION 'host=p sslpassword=keypass' PUBLICATION p", "CREATE SUBSCRIPTION s CONNECTION 'host=p sslpassword=xxxxx' PUBLICATION p"},
		{"a quoted value in a connection string is hidden whole",
			"CREATE SUBSCRIPTION s CONNECTION 'host=p password=''a b\\'' c'' port=1' PUBLICATION p", "CREATE SUBSCRIPTION s CONNECTION 'host=p password=xxxxx port=1' PUBLICATION p"},
		{"a double-quoted value in a connection string is hidden whole",
			`SELECT dblink_connect('host=p password="a b"')`, `SELECT dblink_connect('host=p password=xxxxx')`},
		{"a connection URI's password is hidden",
			"CREATE SUBSCRIPTION s CONNECTION 'postgres://app:secret@p/db' PUBLICATION p", "CREATE SUBSCRIPTION s CONNECTION 'postgres://app:xxxxx@p/db' PUBLICATION p"},
		{"a connection string in an escape string is hidden",
			`SELECT dblink_connect(E'host=p password=se\\cret')`, `SELECT dblink_connect('host=p password=xxxxx')`},
		{"a password constant in a comment is hidden",
			"SELECT 1 /* password 'x' */", "SELECT 1 /* password '***' */"},
		{"a connection string in a line comment is hidden, an apostrophe in it harmless",
			"SELECT 1 -- don't: password=hunter2\nFROM t", "SELECT 1 -- don't: password=xxxxx\nFROM t"},
		{"a connection string cut unterminated stays unterminated",
			"CREATE SUBSCRIPTION s CONNECTION 'host=p password=hunter2 dbn", "CREATE SUBSCRIPTION s CONNECTION 'host=p password=xxxxx dbn"},
		{"a statement without a password is unchanged",
			"UPDATE hot SET k = k + 1 WHERE id = 3", "UPDATE hot SET k = k + 1 WHERE id = 3"},
		{"a column named password is not a constant",
			"SELECT password FROM users", "SELECT password FROM users"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Redact(c.in); got != c.want {
				t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// passwordContexts are statements with a password's place marked %s.
var passwordContexts = []string{
	"ALTER ROLE app PASSWORD %s",
	"ALTER ROLE app WITH LOGIN ENCRYPTED PASSWORD%s VALID UNTIL 'infinity'",
	"CREATE ROLE app PASSWORD /* c */ %s LOGIN",
	"ALTER SERVER s OPTIONS (SET password %s)",
}

// connContexts hold a connection string whose password's place is marked
// %s, in a constant.
var connContexts = []string{
	"CREATE SUBSCRIPTION s CONNECTION 'host=p password=%s dbname=d' PUBLICATION p",
	"CREATE SUBSCRIPTION s CONNECTION 'host=p sslpassword=%s' PUBLICATION p",
	"SELECT dblink_connect('postgres://u:%s@h/db')",
}

// However a password is written, nothing of it is left after Redact, and
// Redact never panics on any text. The fuzzed part sits between two
// markers that appear nowhere else, so a leak of its head or tail shows.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"hunter2", "it's", `a\b`, "$$", "x'; DROP TABLE t; --", "*/ 'y' /*", "a b", `"q"`, ""} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, mid string, at uint8) {
		_ = Redact(mid)
		if strings.ContainsFunc(mid, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return
		}
		pw := "Zq9" + mid + "Xk7"
		var qs []string
		ctx := passwordContexts[int(at)%len(passwordContexts)]
		for _, c := range forms(pw) {
			if strings.Contains(ctx, "PASSWORD%s") && c[0] == 'E' {
				continue // PASSWORDE'...' is the identifier passworde, then a standard string
			}
			qs = append(qs, strings.Replace(ctx, "%s", c, 1))
			qs = append(qs, strings.Replace(ctx, "%s", c[:len(c)-1], 1)) // cut unterminated
		}
		cc := connContexts[int(at)%len(connContexts)]
		switch {
		case strings.HasPrefix(cc, "SELECT") && !strings.ContainsAny(pw, "@/ \t'\\"):
			qs = append(qs, strings.Replace(cc, "%s", pw, 1))
		case !strings.HasPrefix(cc, "SELECT"):
			// libpq's quoted value, then SQL's doubled quotes around it.
			v := "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
			qs = append(qs, strings.Replace(cc, "%s", strings.ReplaceAll(v, "'", "''"), 1))
		}
		for _, q := range qs {
			if got := Redact(q); strings.Contains(got, "Zq9") || strings.Contains(got, "Xk7") {
				t.Fatalf("Redact(%q) = %q: part of the password shows", q, got)
			}
		}
	})
}
