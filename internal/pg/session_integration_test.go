package pg_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// TestIntegrationASessionObservesOnly checks what every lagscope session
// sets on a real server, even in a database whose owner set them otherwise:
// its name, read-only transactions, standard strings, short timeouts (a
// lock waited for 100 ms at most), and no JIT (a catalog read over jit_above_cost compiled at every tick on
// Debian's 15, whose build has LLVM: the subscriber's CPU went to it and the
// apply worker came out starved).
func TestIntegrationASessionObservesOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := labtest.Server(ctx, t)
	// A database owner turns off what lagscope relies on: the startup
	// parameters still win.
	db := "owned"
	admin, err := pgx.Connect(ctx, c.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE DATABASE " + db,
		"ALTER DATABASE " + db + " SET standard_conforming_strings = off",
		"ALTER DATABASE " + db + " SET default_transaction_read_only = off",
		"ALTER DATABASE " + db + " SET lock_timeout = 0",
		"ALTER DATABASE " + db + " SET search_path = evil, pg_catalog"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	admin.Close(ctx)
	conn, err := pg.Connect(ctx, c.ConnString(db), "publisher")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	want := map[string]string{"application_name": "lagscope", "default_transaction_read_only": "on", "transaction_read_only": "on",
		"standard_conforming_strings": "on", "statement_timeout": "2s", "lock_timeout": "100ms", "jit": "off",
		"search_path": "pg_catalog, public"}
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
