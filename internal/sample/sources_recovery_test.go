package sample

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lagscope/lagscope/internal/pg"
)

func TestAStandbysPositionsAreReadAgainWhenRecoveryCancelsTheRead(t *testing.T) {
	cancelled := &pgconn.PgError{Code: "40001", Message: "canceling statement due to conflict with recovery"}
	for _, c := range []struct {
		name      string
		failures  int
		err       error
		wantReads int
		wantErr   bool
	}{
		{"two cancelled, the third read", 2, cancelled, 3, false},
		{"cancelled every time", 100, cancelled, 5, true},
		{"another error is not read again", 100, errors.New("connection refused"), 1, true},
	} {
		reads := 0
		read := againOnRecoveryConflict(func(ctx context.Context, _ *pg.Conn, r *Read) (map[int]procKey, error) {
			reads++
			if reads <= c.failures {
				return nil, c.err
			}
			r.CurrentLSN = 42
			return map[int]procKey{}, nil
		})
		var r Read
		// A connection without a server: the reader above never uses it.
		_, err := read(context.Background(), &pg.Conn{}, &r)
		if reads != c.wantReads || (err != nil) != c.wantErr {
			t.Errorf("%s: %d reads, error %v; want %d reads, error %v", c.name, reads, err, c.wantReads, c.wantErr)
		}
	}
}
