package audit

import (
	"context"
	"errors"
	"fmt"

	"github.com/lagscope/lagscope/internal/pg"
)

// Options say which servers to check: libpq connection strings (keyword/value
// or URI; PG* variables and .pgpass apply). Either may be empty, not both.
type Options struct {
	Publisher  string
	Subscriber string
	// Standby is a physical standby: the standby checks read it, and with
	// Publisher failover-safety compares it with its primary's slots.
	Standby string
	// Primary is the standby's primary: the standby checks that need it
	// read it (the xmin its feedback holds, its slot, synchronous commit).
	Primary string
	// Session, when set, gives an open observing session to read a role
	// ("publisher", "subscriber") with instead of connecting (diagnose
	// reads the setup on the sessions it sampled with); nil for a role:
	// connect. A session given is left open, its statement timeout reset.
	Session func(role string) *pg.Conn
}

// Validate checks the options.
func (o Options) Validate() error {
	if o.Publisher == "" && o.Subscriber == "" && o.Standby == "" {
		return errors.New("--publisher or --subscriber is required (a connection string such as 'host=db1 dbname=app' or postgres://db1/app); give both to check both sides and how they match, or --standby (and its --primary) to check a physical standby")
	}
	if o.Primary != "" && o.Standby == "" {
		return errors.New("--primary is a physical standby's primary: give --standby too")
	}
	return nil
}

// Collect connects to the servers in o (read-only observing sessions) and
// reads their snapshots. Its errors are connection errors, one line each.
func Collect(ctx context.Context, o Options) (Snapshots, error) {
	var s Snapshots
	if err := o.Validate(); err != nil {
		return s, err
	}
	var err error
	if o.Publisher != "" {
		if s.Publisher, err = readSide(ctx, o.Publisher, "publisher", o.session("publisher"), ReadPublisher); err != nil {
			return s, err
		}
	}
	if o.Subscriber != "" {
		if s.Subscriber, err = readSide(ctx, o.Subscriber, "subscriber", o.session("subscriber"), ReadSubscriber); err != nil {
			return s, err
		}
	}
	if o.Standby != "" {
		if s.Standby, err = readSide(ctx, o.Standby, "standby", o.session("standby"), ReadStandby); err != nil {
			return s, err
		}
		if !s.Standby.InRecovery {
			return s, errors.New("--standby: the server is not in recovery (pg_is_in_recovery() is false): it is not a standby; give a physical standby's connection string")
		}
	}
	if o.Primary != "" {
		if s.Primary, err = readSide(ctx, o.Primary, "primary", o.session("primary"), ReadPrimary); err != nil {
			return s, err
		}
		if s.Primary.InRecovery {
			return s, errors.New("--primary: the server is in recovery: it is a standby itself; give the primary the standby streams from")
		}
		if a, b := s.Standby.SystemID, s.Primary.SystemID; a != "" && b != "" && a != b {
			return s, fmt.Errorf("--primary is not this standby's primary: its system identifier is %s, the standby's %s", b, a)
		}
	}
	return s, nil
}

// session is the open session o gives for role, or nil.
func (o Options) session(role string) *pg.Conn {
	if o.Session == nil {
		return nil
	}
	return o.Session(role)
}

// readSide reads one server's snapshot on c, or when c is nil on a
// session it opens and closes; a read error comes back with its passwords
// removed. A session given keeps its own statement timeout afterwards (the
// readers set a longer one).
func readSide[T any](ctx context.Context, dsn, role string, c *pg.Conn, read func(context.Context, *pg.Conn) (*T, error)) (*T, error) {
	if c == nil {
		var err error
		if c, err = pg.Connect(ctx, dsn, role); err != nil {
			return nil, err
		}
		defer c.Close()
	} else {
		defer func() {
			if _, err := c.Exec(ctx, pg.Marker+"RESET statement_timeout"); err != nil {
				c.Close() // its timeout unknown: not to be used again
			}
		}()
	}
	v, err := read(ctx, c)
	if err != nil {
		return nil, pg.RedactErr(err)
	}
	return v, nil
}

// CheckServers collects snapshots and runs every check: the report and the
// snapshots it was made from.
func CheckServers(ctx context.Context, o Options) (Report, Snapshots, error) {
	s, err := Collect(ctx, o)
	if err != nil {
		return Report{}, s, err
	}
	return NewReport(s, Run(s, All)), s, nil
}
