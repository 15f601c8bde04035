package audit

import (
	"context"
	"errors"

	"github.com/lagscope/lagscope/internal/pg"
)

// Options say which servers to check: libpq connection strings (keyword/value
// or URI; PG* variables and .pgpass apply). Either may be empty, not both.
type Options struct {
	Publisher  string
	Subscriber string
	// Standby is a physical standby of the publisher, for failover-safety.
	Standby string
}

// Validate checks the options.
func (o Options) Validate() error {
	if o.Publisher == "" && o.Subscriber == "" {
		return errors.New("--publisher or --subscriber is required (a connection string such as 'host=db1 dbname=app' or postgres://db1/app); give both to check both sides and how they match")
	}
	if o.Standby != "" && o.Publisher == "" {
		return errors.New("--standby needs --publisher: the failover check compares the standby's slots with its primary's")
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
	if o.Publisher != "" {
		c, err := pg.Connect(ctx, o.Publisher, "publisher")
		if err != nil {
			return s, err
		}
		defer c.Close()
		if s.Publisher, err = ReadPublisher(ctx, c); err != nil {
			return s, pg.RedactErr(err)
		}
	}
	if o.Subscriber != "" {
		c, err := pg.Connect(ctx, o.Subscriber, "subscriber")
		if err != nil {
			return s, err
		}
		defer c.Close()
		if s.Subscriber, err = ReadSubscriber(ctx, c); err != nil {
			return s, pg.RedactErr(err)
		}
	}
	if o.Standby != "" {
		c, err := pg.Connect(ctx, o.Standby, "standby")
		if err != nil {
			return s, err
		}
		defer c.Close()
		if s.Standby, err = ReadStandby(ctx, c); err != nil {
			return s, pg.RedactErr(err)
		}
	}
	return s, nil
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
