package pg

import "regexp"

// passwordRE finds a password in a keyword/value connection string (bare
// or quoted, with backslash escapes) and in a URI's user info. The user
// info runs to the last '@' of the URI, as Go's url.Parse (and so pgx)
// reads it: a password with a raw '@' is hidden whole.
var passwordRE = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)|(://[^:/@\s]*:)(\S+)(@)`)

// Redact removes passwords from text that may contain a connection string.
func Redact(s string) string {
	return passwordRE.ReplaceAllStringFunc(s, func(m string) string {
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
	return Redact(e.Err.Error())
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
