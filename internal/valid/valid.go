package valid

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// MaxName is the longest name PostgreSQL keeps, in bytes (NAMEDATALEN - 1).
const MaxName = 63

// Error is a value that fails its field's rule.
type Error struct {
	Field string // where the value sits, e.g. "paths[0].slot"
	Value string
	Rule  string // what a valid value is
}

func (e *Error) Error() string {
	v := e.Value
	if len(v) > 40 {
		v = v[:40] + "..."
	}
	return fmt.Sprintf("field %s holds %s: %s", e.Field, strconv.Quote(v), e.Rule)
}

// SlotName checks a replication slot's name: 1 to 63 of a-z, 0-9 and _.
func SlotName(field, v string) error {
	ok := len(v) >= 1 && len(v) <= MaxName
	for i := 0; ok && i < len(v); i++ {
		c := v[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if !ok {
		return &Error{field, v, "a slot name is 1 to 63 lower-case letters, digits and underscores"}
	}
	return nil
}

// OptionalSlotName is SlotName, or "" (no slot: a subscription with
// slot_name = NONE, a path without one).
func OptionalSlotName(field, v string) error {
	if v == "" {
		return nil
	}
	return SlotName(field, v)
}

// ObjectName checks any other object's name: 1 to 63 bytes, no NUL. Bytes
// that are not UTF-8 are kept: a SQL_ASCII database allows them.
func ObjectName(field, v string) error {
	if v == "" || len(v) > MaxName || strings.IndexByte(v, 0) >= 0 {
		return &Error{field, v, "a name is 1 to 63 bytes without a NUL byte"}
	}
	return nil
}

// OneOf checks an enumerated field against the values lagscope writes.
func OneOf(field, v string, known []string) error {
	if !slices.Contains(known, v) {
		return &Error{field, v, "use one of " + strings.Join(known, ", ")}
	}
	return nil
}

// Checker collects the first error of many checks, so a reader states its
// rules as a list: c.Slot("paths[0].slot", p.Slot); ...; return c.Err.
type Checker struct {
	Err error
}

// Slot applies SlotName.
func (c *Checker) Slot(field, v string) {
	if c.Err == nil {
		c.Err = SlotName(field, v)
	}
}

// OptionalSlot applies OptionalSlotName.
func (c *Checker) OptionalSlot(field, v string) {
	if c.Err == nil {
		c.Err = OptionalSlotName(field, v)
	}
}

// Name applies ObjectName.
func (c *Checker) Name(field, v string) {
	if c.Err == nil {
		c.Err = ObjectName(field, v)
	}
}

// OptionalName applies ObjectName to a name that may be absent ("").
func (c *Checker) OptionalName(field, v string) {
	if c.Err == nil && v != "" {
		c.Err = ObjectName(field, v)
	}
}

// OneOf applies OneOf.
func (c *Checker) OneOf(field, v string, known []string) {
	if c.Err == nil {
		c.Err = OneOf(field, v, known)
	}
}

// At is the field name of element i of list: At("ticks", 3) = "ticks[3]".
func At(list string, i int) string { return list + "[" + strconv.Itoa(i) + "]" }

// Statement checks a statement read back from a file: a known kind, a
// known server, and text that is one printable line (what the quoting layer
// writes), or withheld. A file that holds anything else was not written by
// lagscope, and its statements are not offered to anybody.
func Statement(field string, s quote.Statement) error {
	if err := OneOf(field+".kind", string(s.Kind), []string{string(quote.SQLKind), string(quote.ShellKind)}); err != nil {
		return err
	}
	if err := OneOf(field+".on", s.On, []string{"", "publisher", "subscriber", "standby", "primary"}); err != nil {
		return err
	}
	for _, t := range []struct{ name, v string }{{"text", s.Text}, {"note", s.Note}, {"instead", s.Instead}, {"withheld", s.Withheld}} {
		if !quote.Printable(t.v) {
			return &Error{field + "." + t.name, t.v, "a statement is one line of printable text, as lagscope writes it"}
		}
	}
	if s.Text == "" && s.Withheld == "" {
		return &Error{field + ".text", "", "a statement has its text, or says why it was withheld"}
	}
	return nil
}

// Statements applies Statement to each of sts.
func (c *Checker) Statements(field string, sts []quote.Statement) {
	for i, s := range sts {
		if c.Err == nil {
			c.Err = Statement(At(field, i), s)
		}
	}
}
