// Package sleep waits for a while unless a context ends first: the samplers,
// the lab and the link's rate limiter all pause this way.
package sleep

import (
	"context"
	"time"
)

// For waits d, or until ctx ends, in which case it returns ctx's error. A
// ctx that has already ended returns its error whatever d is: a loop that
// runs late (d <= 0) stops when its context does, not at random (select
// picks either of two ready channels).
func For(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Until waits until t (at once if it has passed), or until ctx ends.
func Until(ctx context.Context, t time.Time) error {
	return For(ctx, time.Until(t))
}
