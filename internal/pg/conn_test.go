package pg

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestRedact(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"a keyword password is hidden", "host=a password=secret dbname=x", "host=a password=xxxxx dbname=x"},
		{"a quoted keyword password is hidden", "password='s e c' host=a", "password=xxxxx host=a"},
		{"a URI password is hidden", "postgres://bob:hunter2@db:5432/x", "postgres://bob:xxxxx@db:5432/x"},
		{"text without a password is unchanged", "host=a user=bob", "host=a user=bob"},
		{"a URI password with a raw @ is hidden whole (url.Parse takes the last @)", "postgres://bob:p@ss@db/x", "postgres://bob:xxxxx@db/x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Redact(c.in); got != c.want {
				t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestRecoveryCancelledIsSQLState40001Only(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "40001", Severity: "FATAL", Message: "canceling statement due to conflict with recovery"}, true},
		{fmt.Errorf("read: %w", &pgconn.PgError{Code: "40001"}), true},
		{&pgconn.PgError{Code: "57014"}, false},
		{errors.New("40001"), false},
		{nil, false},
	}
	for _, c := range cases {
		if got := RecoveryCancelled(c.err); got != c.want {
			t.Errorf("RecoveryCancelled(%v) = %t, want %t", c.err, got, c.want)
		}
	}
}
