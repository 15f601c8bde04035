package pg

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ReadTimeout bounds a read lagscope makes on a session: the server
// cancels a slow statement after DefaultStatementTimeout, so a read still
// unanswered a second later is on a dead or frozen connection (a path that
// drops packets without a FIN or RST), which no server-side timeout ends.
const ReadTimeout = DefaultStatementTimeout + time.Second

// SetupTimeout bounds a session's first reads after Connect (which bounds
// itself: the connect timeout, then ReadTimeout for the version).
const SetupTimeout = 2 * ReadTimeout

// NoAnswer is the cause of a deadline lagscope set on its own reads: no
// answer within its duration.
type NoAnswer time.Duration

func (d NoAnswer) Error() string {
	return fmt.Sprintf("no answer within %s (a frozen or broken network path: the server cancels a slow statement after %s)", time.Duration(d), DefaultStatementTimeout)
}

// WithAnswerTimeout is ctx bounded by d; its expiry reads as NoAnswer(d).
func WithAnswerTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, NoAnswer(d))
}

// Unanswered is err, or an error that reads as NoAnswer (and wraps both)
// when ctx's own deadline (WithAnswerTimeout) is what cut it.
func Unanswered(ctx context.Context, err error) error {
	var na NoAnswer
	if err != nil && errors.As(context.Cause(ctx), &na) {
		return &unanswered{na: na, err: err}
	}
	return err
}

type unanswered struct {
	na  NoAnswer
	err error
}

func (u *unanswered) Error() string   { return u.na.Error() }
func (u *unanswered) Unwrap() []error { return []error{u.na, u.err} }
