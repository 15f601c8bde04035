package sleep

import (
	"context"
	"errors"
	"testing"
	"time"
)

// An ended context wins over a wait that is already due, every time: the
// sampler's tick loop, running late behind a frozen server, read ticks past
// its window's end while select picked the timer.
func TestAnEndedContextEndsAWaitAlreadyDue(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 1000; i++ {
		if err := For(ctx, -time.Second); !errors.Is(err, context.Canceled) {
			t.Fatalf("wait %d: got %v, want context.Canceled", i, err)
		}
	}
}

func TestAWaitEndsWhenDueOrWhenItsContextEnds(t *testing.T) {
	if err := For(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("a due wait: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := For(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a wait cut by its context: got %v", err)
	}
}
