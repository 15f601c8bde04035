package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// A redacted error hides the password in its text and in the text of every
// error that wraps it, while errors.Is and errors.As still reach the cause.
func TestARedactedErrorKeepsItsChain(t *testing.T) {
	cause := &pgconn.PgError{Code: "28P01", Message: "password authentication failed"}
	inner := fmt.Errorf("connect postgres://bob:hunter2@db/app: %w: %w", cause, context.DeadlineExceeded)
	err := fmt.Errorf("publisher: %w", RedactErr(inner))
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the password shows: %q", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is does not reach context.DeadlineExceeded through %q", err)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "28P01" {
		t.Errorf("errors.As does not reach the server's error through %q", err)
	}
	var re *RedactedError
	if !errors.As(err, &re) {
		t.Errorf("errors.As does not find the RedactedError in %q", err)
	}
	summary := &RedactedError{Err: inner, Text: "no answer: password=hunter2"}
	if got := summary.Error(); got != "no answer: password=xxxxx" || !errors.Is(summary, context.DeadlineExceeded) {
		t.Errorf("summary %q (Is deadline: %v), want its own text redacted and the chain kept", got, errors.Is(summary, context.DeadlineExceeded))
	}
	if RedactErr(nil) != nil {
		t.Error("RedactErr(nil) is not nil")
	}
}
