package pg

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A connect cut by the caller's deadline (a reconnect during sampling, 3 s)
// is not reported as the connect timeout (5 s), which did not run out.
func TestAConnectCutByItsCallerSaysWhoseLimitRanOut(t *testing.T) {
	line := "/tmp/x/.s.PGSQL.5432 (/tmp/x): timeout: context deadline exceeded"
	if got := attemptReason(line, limitOf(context.Background(), 5*time.Second)); !strings.Contains(got, "within 5s (the connect timeout)") {
		t.Errorf("no deadline of the caller's: %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	got := attemptReason(line, limitOf(ctx, 5*time.Second))
	if !strings.Contains(got, "within 3s (lagscope's limit") || strings.Contains(got, "connect timeout") {
		t.Errorf("the caller's 3 s deadline: %q", got)
	}
	long, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	if got := attemptReason(line, limitOf(long, 5*time.Second)); !strings.Contains(got, "within 5s (the connect timeout)") {
		t.Errorf("a caller's deadline after the connect timeout: %q", got)
	}
}
