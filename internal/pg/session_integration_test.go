package pg_test

import (
	"context"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/labtest"
	"github.com/lagscope/lagscope/internal/pg"
)

// TestIntegrationASessionObservesOnly checks what every lagscope session
// sets on a real server: its name, read-only transactions, short timeouts,
// and no JIT (a catalog read over jit_above_cost compiled at every tick on
// Debian's 15, whose build has LLVM: the subscriber's CPU went to it and the
// apply worker came out starved).
func TestIntegrationASessionObservesOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := labtest.Server(ctx, t)
	conn, err := pg.Connect(ctx, c.ConnString("postgres"), "publisher")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	want := map[string]string{"application_name": "lagscope", "default_transaction_read_only": "on", "statement_timeout": "2s", "jit": "off"}
	for name, v := range want {
		var got string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != v {
			t.Errorf("%s = %q, want %q", name, got, v)
		}
	}
}
