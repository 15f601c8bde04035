package pg

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// forms writes password pw into every way a connection string carries one:
// keyword/value bare (when libpq takes it bare) and quoted (libpq escapes
// ' and \ with a backslash), URI user info and query parameter
// (percent-encoded).
func forms(pw string) []string {
	quoted := "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
	out := []string{
		"host=db1 PASSWORD = " + quoted + " dbname=app",
		"password=" + quoted,
		"postgres://bob:" + url.PathEscape(pw) + "@db1:5432/app?sslmode=require",
		"postgresql://bob:" + url.QueryEscape(pw) + "@db1/app",
		"postgres://bob@db1/app?password=" + url.QueryEscape(pw) + "&sslmode=disable",
		"host=db1 sslpassword=" + quoted + " sslkey=k.pem",
		"sslpassword=" + quoted,
		"postgres://bob@db1/app?sslpassword=" + url.QueryEscape(pw),
		// Not libpq's quoting, but what a person may write: hidden whole.
		`host=db1 password="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(pw) + `" dbname=app`,
	}
	if !strings.ContainsAny(pw, " \t\n\r\v\f'\\") {
		out = append(out, "host=db1 password="+pw+" dbname=app")
	}
	bare := strings.NewReplacer(`\`, `\\`, `'`, `\'`, " ", `\ `).Replace(pw)
	return append(out,
		"host=db1 password="+bare+" dbname=app",     // libpq's backslash escapes
		"host=db1 port=x password="+bare,            // and a parse error after it
		"host=db1 password="+quoted[:len(quoted)-1], // an unterminated quote
		"postgres://bob:"+pw+"@db1:x/app",           // raw, and a parse error
	)
}

// No form of a connection string shows any part of its password after
// Redact, neither in the text nor in the error pgx makes of it, nor in
// what Connect says of a string that does not parse (pgx's own
// errors pass through RedactErr, which keeps their chain). The fuzzed part
// sits between two markers that appear nowhere else, so a leak of the
// password's head or tail shows as a marker.
func FuzzRedactHidesThePassword(f *testing.F) {
	for _, pw := range []string{"hunter2", "p@ss word", "it's", `back\slash`, "per%cent", "a'b'c", "x=y z", "e:@/?#&", ""} {
		f.Add(pw)
	}
	f.Fuzz(func(t *testing.T, mid string) {
		if strings.ContainsFunc(mid, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return // control characters do not survive libpq's parser either
		}
		pw := "Zq9" + mid + "Xk7"
		for _, s := range forms(pw) {
			out := Redact(s)
			if _, perr := pgx.ParseConfig(s); perr != nil {
				rerr := RedactErr(perr)
				if !errors.Is(rerr, perr) {
					t.Fatalf("RedactErr lost the chain of %v", perr)
				}
				out += "\n" + rerr.Error()
				// What Connect says of a string that does not parse.
				if _, cerr := Connect(context.Background(), s, "publisher"); cerr != nil {
					out += "\n" + cerr.Error()
				}
			}
			if strings.Contains(out, "Zq9") || strings.Contains(out, "Xk7") {
				t.Fatalf("part of password %q shows in %q (from %q)", pw, out, s)
			}
		}
	})
}
