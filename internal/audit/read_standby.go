package audit

import (
	"context"
	"fmt"
	"regexp"

	"github.com/lagscope/lagscope/internal/pg"
)

// ReadStandby reads a physical standby of the publisher over c: its
// settings for slot synchronisation, whether primary_conninfo names a
// database, and its slots (the synced copies of the primary's failover
// slots). A part the role may not read is recorded in Unreadable.
func ReadStandby(ctx context.Context, c *pg.Conn) (*Standby, error) {
	r, err := newReader(ctx, c)
	if err != nil {
		return nil, err
	}
	s := &Standby{Version: c.Version}
	var db string
	if err := r.readBasics(ctx, &s.Taken, &db, &s.InRecovery, StandbySettings, &s.Settings); err != nil {
		return nil, fmt.Errorf("standby: %w", err)
	}
	// primary_conninfo is readable with pg_read_all_settings only (it may
	// hold a password): only whether it names a database is kept.
	var conninfo []string
	if err := r.q.QueryRow(ctx, pg.Marker+"SELECT array_agg(setting) FROM pg_settings WHERE name = 'primary_conninfo'").Scan(&conninfo); err == nil && len(conninfo) == 1 {
		has := conninfoNamesDB(conninfo[0])
		s.ConninfoDBName = &has
	}
	if err := r.section(StandbySlots, "SELECT on pg_replication_slots", func() error {
		p := &Publisher{InRecovery: s.InRecovery}
		err := r.readSlots(ctx, p)
		s.Slots = p.Slots
		return err
	}); err != nil {
		return nil, fmt.Errorf("standby: %w", err)
	}
	if len(r.unreadable) > 0 {
		s.Unreadable = r.unreadable
	}
	return s, nil
}

// conninfoDB matches a dbname keyword with a value, or a URI with a path.
var conninfoDB = regexp.MustCompile(`(^|\s)dbname\s*=\s*('[^']+'|[^\s']+)|^postgres(ql)?://[^/?\s]*/[^?\s]+`)

// conninfoNamesDB says whether a libpq connection string names a
// database, without keeping any of it.
func conninfoNamesDB(s string) bool { return conninfoDB.MatchString(s) }
