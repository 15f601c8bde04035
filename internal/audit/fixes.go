package audit

import (
	"strconv"
	"unicode/utf8"

	"github.com/lagscope/lagscope/internal/quote"
)

// The builders of the statements findings print. Each takes names as values
// and leaves quoting to internal/quote; none formats a name into text.

// Server roles a statement runs on (quote.Statement.On).
const (
	onPublisher  = "publisher"
	onSubscriber = "subscriber"
	onStandby    = "standby"
	onPrimary    = "primary" // a physical standby's primary (check --primary)
)

// qname is t's name for a statement.
func (t Table) qname() quote.Name { return quote.Name{Schema: t.Schema, Name: t.Name} }

// id prints a name for prose (Objects, Found, Why, Fix).
func id(name string) string { return quote.Id(name) }

// ids prints names for prose, comma-separated.
func ids(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += quote.Id(n)
	}
	return out
}

// alterSystem sets a server setting on server on: reloaded, or with a note
// that it takes effect at the next restart.
func alterSystem(on, name, value string, restart bool) []quote.Statement {
	st := quote.SQL("ALTER SYSTEM SET %I = %L;", name, value).OnServer(on)
	if restart {
		return []quote.Statement{st.WithNote("takes effect when the " + on + " is restarted")}
	}
	return []quote.Statement{st, quote.SQL("SELECT pg_reload_conf();").OnServer(on)}
}

// alterSystemInt is alterSystem for an integer setting.
func alterSystemInt(on, name string, value int64, restart bool) []quote.Statement {
	return alterSystem(on, name, strconv.FormatInt(value, 10), restart)
}

// dropSlot drops a replication slot of the publisher by name.
func dropSlot(name string) quote.Statement {
	return quote.SQL("SELECT pg_drop_replication_slot(%L);", name).OnServer(onPublisher).
		WithNote("only once nobody will read from the slot again: its consumer must then be resynchronised")
}

// lockNote is said beside ALTER TABLE forms that take an ACCESS EXCLUSIVE
// lock (ADD COLUMN, ALTER COLUMN TYPE, DROP NOT NULL, REPLICA IDENTITY, ADD
// PRIMARY KEY USING INDEX): every query on the table, reads included,
// waits for it, and it waits for every running one.
const lockNote = "takes an ACCESS EXCLUSIVE lock on the table: reads and writes wait behind it, and it waits for running transactions; set a lock_timeout and run it at a quiet time"

// addPrimaryKey gives table t a primary key on cols in the concurrent form:
// the unique index is built without blocking writes, then attached as the
// key, which holds the ACCESS EXCLUSIVE lock only briefly when the columns
// are already NOT NULL.
func addPrimaryKey(on string, t Table, cols []string) []quote.Statement {
	ix := indexName(t.Name, "_pkey")
	return []quote.Statement{
		quote.SQL("CREATE UNIQUE INDEX CONCURRENTLY %I ON %I (%I);", ix, t.qname(), cols).OnServer(on).
			WithNote("builds the key's index without blocking writes; not inside a transaction block; fails (leaving an invalid index to drop) if the columns hold duplicates"),
		quote.SQL("ALTER TABLE %I ADD PRIMARY KEY USING INDEX %I;", t.qname(), ix).OnServer(on).
			WithNote(lockNote + "; brief if the columns are NOT NULL already, otherwise it scans the table to set NOT NULL under that lock"),
	}
}

// indexName is table's name with suffix, cut to PostgreSQL's 63 bytes at a
// rune boundary (as the server would truncate it).
func indexName(table, suffix string) string {
	max := 63 - len(suffix)
	for len(table) > max {
		_, n := utf8.DecodeLastRuneInString(table)
		table = table[:len(table)-n]
	}
	return table + suffix
}
