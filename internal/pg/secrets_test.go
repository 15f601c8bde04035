package pg

import (
	"context"
	"encoding/json"
	"html"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// Passwords reads the password of a connection string whether or not it
// parses: escaped, quoted, unterminated, in a URI's user info or query.
func TestPasswordsReadsEveryForm(t *testing.T) {
	cases := []struct {
		dsn  string
		want string
	}{
		{`host=a password=my\ s3cr3t port=x`, "my s3cr3t"},
		{`host=a password='correct s3cr3t`, "correct s3cr3t"},
		{`password = 'it\'s \\ here' dbname=x`, `it's \ here`},
		{`host=a sslpassword=keypass`, "keypass"},
		{`postgres://u:p@ss@h:x/db`, "p@ss"},
		{`postgresql://u:p%20ss@h/db`, "p ss"},
		{`postgres://u@h/db?password=a%26b&sslmode=x`, "a&b"},
		{`postgres://u@h/db?pass%77ord=enc`, "enc"},
	}
	for _, c := range cases {
		if got := Passwords(c.dsn); !slices.Contains(got, c.want) {
			t.Errorf("Passwords(%q) = %q, want it to hold %q", c.dsn, got, c.want)
		}
	}
	if got := Passwords("host=a user=bob dbname=x"); len(got) != 0 {
		t.Errorf("a string without a password gave %q", got)
	}
}

// A remembered password is removed in each form lagscope's writers could
// give it: as is, libpq-escaped, percent-encoded, Go-, JSON- and HTML-quoted.
func TestRedactRemovesARememberedPasswordInEveryForm(t *testing.T) {
	pw := `Zq9 "t<a>g" o'k\Xk7`
	Remember("host=a password='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'")
	js, _ := json.Marshal(pw)
	for _, text := range []string{
		"error: " + pw + " here",
		"quoted " + string(js),
		"html " + html.EscapeString(pw),
		"uri postgres://u:" + url.PathEscape(pw) + "@h/db",
		"query ?password=" + url.QueryEscape(pw),
		`bare password=Zq9\ \"t<a>g\"\ o\'k\\Xk7 port=1`,
	} {
		if got := Redact(text); strings.Contains(got, "Zq9") || strings.Contains(got, "Xk7") {
			t.Errorf("Redact(%q) = %q: the password shows", text, got)
		}
	}
	Remember("password=abc") // shorter than MinSecret: only where it stands as a password
	if got := Redact("abc is here; password=abc"); got != "abc is here; password=xxxxx" {
		t.Errorf("a short password: %q", got)
	}
}

// PGSSLPASSWORD (the client key's passphrase) and a connection string's
// sslpassword are remembered as passwords are: Redact removes them from
// any text, wherever they show.
func TestRememberKeepsTheSSLPasswords(t *testing.T) {
	t.Setenv("PGSSLPASSWORD", "Env9keyPass")
	Remember("host=a sslpassword='Str9 key pass' dbname=x")
	for _, text := range []string{
		"could not decrypt key with Env9keyPass",
		"could not decrypt key with Str9 key pass",
	} {
		if got := Redact(text); strings.Contains(got, "Env9") || strings.Contains(got, "Str9") {
			t.Errorf("Redact(%q) = %q: the passphrase shows", text, got)
		}
	}
}

// Redact hides a password or sslpassword however a connection string
// quotes it: bare, single-quoted with escaped quotes, double-quoted.
func TestRedactHidesQuotedValues(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"a single-quoted value with a space is hidden whole",
			`host=a password='a b' dbname=x`, `host=a password=xxxxx dbname=x`},
		{"a single-quoted value with an escaped quote is hidden whole",
			`password='it\'s here' dbname=x`, `password=xxxxx dbname=x`},
		{"a double-quoted value is hidden whole",
			`host=a password="a b\" c" dbname=x`, `host=a password=xxxxx dbname=x`},
		{"an sslpassword is hidden",
			`sslkey=k.pem sslpassword=keypass port=1`, `sslkey=k.pem sslpassword=xxxxx port=1`},
		{"a quoted sslpassword is hidden whole",
			`sslpassword = 'key pass'`, `sslpassword = xxxxx`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Redact(c.in); got != c.want {
				t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// Every parse error and every connection failure Connect returns leaves
// out the password, however the connection string spells it (escaped,
// quoted, unterminated, a URI with a raw '@'), and keeps its reason.
func TestConnectErrorsNeverShowThePassword(t *testing.T) {
	pw := `Zq9 s3 'q' \ Xk7`
	quoted := "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
	bare := strings.NewReplacer(`\`, `\\`, `'`, `\'`, " ", `\ `).Replace(pw)
	for _, dsn := range []string{
		"host=127.0.0.1 port=x user=u password=" + bare,
		"host=127.0.0.1 port=x user=u password=" + quoted,
		"host=127.0.0.1 port=x user=u password='" + pw,
		"host=" + nowhere + " port=1 user=u password=" + bare,
		"host=" + nowhere + " port=1 user=u password=" + quoted,
		"postgres://u:" + url.PathEscape(pw) + "@h:x/db",
		"postgres://u:Zq9@s3@Xk7@h:x/db",
		"postgres://u@h:x/db?password=" + url.QueryEscape(pw),
		"password=" + bare + " sslmode=bogus",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := Connect(ctx, dsn, "publisher")
		cancel()
		if err == nil {
			t.Fatalf("%q connected", dsn)
		}
		if out := err.Error(); strings.Contains(out, "Zq9") || strings.Contains(out, "Xk7") || strings.Contains(out, "s3") {
			t.Errorf("the password shows in %q (from %q)", out, dsn)
		} else if strings.Contains(out, "\n") || !strings.Contains(out, "publisher") {
			t.Errorf("%q: want one line naming the publisher", out)
		}
	}
}
