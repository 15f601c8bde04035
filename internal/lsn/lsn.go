package lsn

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// LSN is a WAL position in bytes since '0/0'; 0 means unknown.
type LSN uint64

// String prints l as PostgreSQL does: 16/B374D848.
func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint32(l)) }

// Parse reads a position as PostgreSQL prints it (16/B374D848).
func Parse(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("WAL position %q: want two hexadecimal numbers as X/Y, such as 16/B374D848", s)
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	w, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("WAL position %q: want two hexadecimal numbers as X/Y, such as 16/B374D848", s)
	}
	return LSN(h<<32 | w), nil
}

// MarshalText implements encoding.TextMarshaler: X/Y.
func (l LSN) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: X/Y.
func (l *LSN) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err == nil {
		*l = v
	}
	return err
}

// UnmarshalJSON reads "X/Y" or a plain number of bytes (how recordings and
// reports made before lagscope 0.6 held positions).
func (l *LSN) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		s, err := strconv.Unquote(string(b))
		if err != nil {
			return fmt.Errorf("WAL position %s: %w", b, err)
		}
		return l.UnmarshalText([]byte(s))
	}
	if string(b) == "null" {
		return nil
	}
	n, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("WAL position %s: want \"X/Y\" or a number of bytes", b)
	}
	*l = LSN(n)
	return nil
}

// Scan implements sql.Scanner for the forms lagscope reads a position in:
// pg_lsn - '0/0' as a number, or pg_lsn's text; NULL is 0 (unknown).
func (l *LSN) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*l = 0
	case int64:
		if v < 0 {
			return fmt.Errorf("WAL position %d: negative", v)
		}
		*l = LSN(v)
	case string:
		return l.UnmarshalText([]byte(v))
	case []byte:
		return l.UnmarshalText(v)
	default:
		return fmt.Errorf("WAL position: cannot scan %T", src)
	}
	return nil
}

// Sub is l - m in bytes: negative when m is ahead of l.
func (l LSN) Sub(m LSN) int64 { return int64(l) - int64(m) }

// SQL is the SQL that reads the pg_lsn expression expr as bytes since '0/0'
// (0 when NULL), the form [LSN.Scan] takes.
func SQL(expr string) string { return "coalesce((" + expr + " - '0/0')::bigint, 0)" }
