package audit

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/pg"
)

// ReadStandby reads a physical standby over c: its settings (slot
// synchronisation, replay and feedback), whether primary_conninfo names a
// database and the application_name it gives, its WAL receiver, and its
// slots (the synced copies of the primary's failover slots). A part the
// role may not read is recorded in Unreadable.
func ReadStandby(ctx context.Context, c *pg.Conn) (*Standby, error) {
	r, err := newReader(ctx, c)
	if err != nil {
		return nil, err
	}
	s := &Standby{Version: c.Version}
	if err := r.readBasics(ctx, &s.Taken, &s.Database, &s.InRecovery, StandbySettings, &s.Settings); err != nil {
		return nil, fmt.Errorf("standby: %w", err)
	}
	// primary_conninfo is readable with pg_read_all_settings only (it may
	// hold a password): only whether it names a database, and the
	// application_name it gives, are kept.
	var conninfo []string
	if err := r.q.QueryRow(ctx, pg.Marker+"SELECT array_agg(setting) FROM pg_settings WHERE name = 'primary_conninfo'").Scan(&conninfo); err == nil && len(conninfo) == 1 {
		has := conninfoNamesDB(conninfo[0])
		s.ConninfoDBName = &has
		s.ConninfoAppName = conninfoAppName(conninfo[0])
	}
	s.SystemID = r.systemID(ctx)
	if err := r.section(StandbyReceiver, "pg_read_all_stats (pg_monitor)", func() error { return r.readReceiver(ctx, s) }); err != nil {
		return nil, fmt.Errorf("standby: %w", err)
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

// readReceiver reads pg_stat_wal_receiver. Without pg_read_all_stats its
// row shows the pid only: that is recorded as unreadable.
func (r *reader) readReceiver(ctx context.Context, s *Standby) error {
	rows, _ := r.q.Query(ctx, pg.Marker+`SELECT pid, status, coalesce(sender_host, ''), coalesce(sender_port, 0), coalesce(slot_name, '')
FROM pg_stat_wal_receiver WHERE pid IS NOT NULL`)
	var x Receiver
	var status *string
	_, err := pgx.ForEachRow(rows, []any{&x.PID, &status, &x.SenderHost, &x.SenderPort, &x.Slot}, func() error {
		if status == nil {
			r.unreadable[StandbyReceiver] = "needs pg_read_all_stats (pg_monitor): pg_stat_wal_receiver shows only its pid"
			return nil
		}
		x.Status = *status
		rec := x
		s.Receiver = &rec
		return nil
	})
	return err
}

// conninfoAppName is the application_name a libpq connection string
// (keyword/value or URI) gives, or "".
func conninfoAppName(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "postgresql://") || strings.HasPrefix(s, "postgres://") {
		u, err := url.Parse(s)
		if err != nil {
			return ""
		}
		return u.Query().Get("application_name")
	}
	for i := 0; i < len(s); {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			break
		}
		k := i
		for i < len(s) && s[i] != '=' && !isSpace(s[i]) {
			i++
		}
		key := s[k:i]
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			return "" // not a connection string libpq would take
		}
		i++
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		var v strings.Builder
		if i < len(s) && s[i] == '\'' {
			for i++; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				v.WriteByte(s[i])
			}
			i++
		} else {
			for ; i < len(s) && !isSpace(s[i]); i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				v.WriteByte(s[i])
			}
		}
		if key == "application_name" {
			return v.String()
		}
	}
	return ""
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// systemID is the server's system identifier, or "" when the role may not
// run pg_control_system() (some services revoke it from PUBLIC): it only
// confirms that --primary is the standby's primary.
func (r *reader) systemID(ctx context.Context) string {
	var id string
	if err := r.q.QueryRow(ctx, pg.Marker+"SELECT system_identifier::text FROM pg_control_system()").Scan(&id); err != nil {
		return ""
	}
	return id
}
