package pg

import (
	"encoding/json"
	"html"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// MinSecret is the shortest password Redact removes wherever it shows, by
// value. A shorter one is only removed where it stands as a password
// (password=..., a URI's user info): removing every "ab" from lagscope's
// output would make it unreadable, and such a password guards nothing.
const MinSecret = 4

// secrets is every password lagscope has been given or led to, in every
// form it may be written in; Redact removes them all.
var secrets struct {
	sync.RWMutex
	forms []string // longest first
	seen  map[string]bool
}

// Remember notes the passwords dsn carries or leads to, whatever its
// syntax and whether or not it parses: its password and sslpassword
// keywords (bare, backslash-escaped or quoted, terminated or not), a URI's
// user info and query parameters (raw and percent-decoded), PGPASSWORD and
// PGSSLPASSWORD (the passphrase of the client key, which pgx reads), and
// the password pgx takes from a password or service file. From then on
// Redact removes each of them from any text, in each form it may take in
// lagscope's output (as given, escaped, quoted, percent-encoded, in Go,
// JSON and HTML quoting). Connect calls it; call it for any connection
// string lagscope handles before Connect.
func Remember(dsn string) {
	var pws []string
	pws = append(pws, Passwords(dsn)...)
	pws = append(pws, os.Getenv("PGPASSWORD"), os.Getenv("PGSSLPASSWORD"))
	if cfg, err := pgx.ParseConfig(dsn); err == nil {
		pws = append(pws, cfg.Password) // pgx took it from a password or service file when the string has none
	}
	remember(pws)
}

func remember(pws []string) {
	secrets.Lock()
	defer secrets.Unlock()
	if secrets.seen == nil {
		secrets.seen = map[string]bool{}
	}
	for _, pw := range pws {
		if len(pw) < MinSecret {
			continue
		}
		for _, f := range secretForms(pw) {
			if len(f) >= MinSecret && !secrets.seen[f] {
				secrets.seen[f] = true
				secrets.forms = append(secrets.forms, f)
			}
		}
	}
	sort.SliceStable(secrets.forms, func(i, j int) bool { return len(secrets.forms[i]) > len(secrets.forms[j]) })
}

// secretForms is pw as each writer lagscope's text passes through could
// have written it.
func secretForms(pw string) []string {
	js, _ := json.Marshal(pw)
	q := strconv.Quote(pw)
	return []string{
		pw,
		strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw),            // libpq quoted value
		strings.NewReplacer(`\`, `\\`, `'`, `\'`, " ", `\ `).Replace(pw), // libpq bare value
		url.PathEscape(pw), url.QueryEscape(pw),
		strings.TrimPrefix(url.UserPassword("", pw).String(), ":"), // URI user info
		q[1 : len(q)-1], string(js[1 : len(js)-1]), html.EscapeString(pw),
	}
}

// scrub removes every remembered password form from s.
func scrub(s string) string {
	secrets.RLock()
	defer secrets.RUnlock()
	for _, f := range secrets.forms {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, "xxxxx")
		}
	}
	return s
}

// Passwords returns the values of dsn's password and sslpassword settings,
// read leniently so that a string that does not parse still yields them:
// keyword/value (libpq's syntax: bare values with backslash escapes,
// quoted values, an unterminated quote running to the end) or a URI (the
// user info's password up to the last '@', raw and percent-decoded, and
// the query's parameters).
func Passwords(dsn string) []string {
	s := strings.TrimSpace(dsn)
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		return uriPasswords(s)
	}
	var out []string
	for _, kv := range keywordValues(s) {
		if isPasswordKey(kv[0]) {
			out = append(out, kv[1])
		}
	}
	return out
}

func isPasswordKey(k string) bool {
	k = strings.ToLower(strings.TrimSpace(k))
	return k == "password" || k == "sslpassword"
}

// keywordValues splits s as libpq's conninfo_parse does, never failing:
// what it cannot read as key = value ends the scan.
func keywordValues(s string) [][2]string {
	var out [][2]string
	i := 0
	space := func() {
		for i < len(s) && strings.ContainsRune(" \t\n\r\v\f", rune(s[i])) {
			i++
		}
	}
	for {
		space()
		start := i
		for i < len(s) && s[i] != '=' && !strings.ContainsRune(" \t\n\r\v\f", rune(s[i])) {
			i++
		}
		key := s[start:i]
		space()
		if i >= len(s) || s[i] != '=' {
			return out
		}
		i++
		space()
		var v strings.Builder
		if i < len(s) && s[i] == '\'' {
			for i++; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				v.WriteByte(s[i])
			}
			i = min(i+1, len(s)) // past the closing quote, if any
		} else {
			for ; i < len(s) && !strings.ContainsRune(" \t\n\r\v\f", rune(s[i])); i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				v.WriteByte(s[i])
			}
		}
		out = append(out, [2]string{key, v.String()})
	}
}

// uriPasswords reads a URI's passwords without requiring it to parse.
func uriPasswords(s string) []string {
	var out []string
	add := func(raw string) {
		out = append(out, raw)
		if dec, err := url.PathUnescape(raw); err == nil {
			out = append(out, dec)
		}
		if dec, err := url.QueryUnescape(raw); err == nil {
			out = append(out, dec)
		}
	}
	rest := s[strings.Index(s, "://")+3:]
	// Go's url.Parse ends the authority at the first '/', pgx's own reading
	// may differ on malformed input: take the user info both ways.
	for _, auth := range []string{cutAny(rest, "/?#"), rest} {
		if at := strings.LastIndex(auth, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(auth[:at], ":"); ok {
				add(pw)
			}
		}
	}
	if _, q, ok := strings.Cut(rest, "?"); ok {
		q, _, _ = strings.Cut(q, "#")
		for _, kv := range strings.Split(q, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if dk, err := url.QueryUnescape(k); err == nil {
				k = dk
			}
			if isPasswordKey(k) {
				add(v)
			}
		}
	}
	return out
}

func cutAny(s, chars string) string {
	if i := strings.IndexAny(s, chars); i >= 0 {
		return s[:i]
	}
	return s
}
