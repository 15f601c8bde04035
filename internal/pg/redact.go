package pg

import (
	"errors"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// passwordRE finds a password or sslpassword in a keyword/value
// connection string (bare with backslash escapes, or quoted in single or
// double quotes with backslash escapes, an unterminated quote running to
// the end) and in a URI's user info. The user
// info runs to the last '@' of the URI, as Go's url.Parse (and so pgx)
// reads it: a password with a raw '@' is hidden whole.
var passwordRE = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?|(?:\\.|\\$|[^\s\\])+)|(://[^:/@\s]*:)(\S+)(@)`)

// Redact removes passwords from text: every password Remember noted,
// wherever and in whatever form it shows, then anything that stands as a
// password in a connection string.
func Redact(s string) string {
	return passwordRE.ReplaceAllStringFunc(scrub(s), func(m string) string {
		sub := passwordRE.FindStringSubmatch(m)
		if sub[1] != "" {
			return sub[1] + "xxxxx"
		}
		return sub[3] + "xxxxx" + sub[5]
	})
}

// RedactedError is an error whose text has its passwords removed (Redact);
// Unwrap keeps the error it wraps reachable for errors.Is and errors.As
// (print the RedactedError, never what As finds inside it).
type RedactedError struct {
	Err error
	// Text, when set, is shown instead of Err's text (a one-line summary
	// of it); it is redacted too.
	Text string
}

func (e *RedactedError) Error() string {
	if e.Text != "" {
		return Redact(e.Text)
	}
	text := e.Err.Error()
	var pce *pgconn.ParseConfigError
	if errors.As(e.Err, &pce) {
		// pgx quotes the string it could not parse, masked at best effort:
		// say why without quoting it.
		text = strings.Replace(text, pce.Error(), "cannot parse the connection string: "+parseErrText(pce), 1)
	}
	return Redact(text)
}

// Unwrap returns the wrapped error.
func (e *RedactedError) Unwrap() error { return e.Err }

// RedactErr wraps err so that its text never shows a password; nil stays nil.
func RedactErr(err error) error {
	if err == nil {
		return nil
	}
	return &RedactedError{Err: err}
}
