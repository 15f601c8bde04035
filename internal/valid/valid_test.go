package valid

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/quote"
)

func TestRules(t *testing.T) {
	cases := []struct {
		name string
		err  error
		bad  bool
	}{
		{"a lower-case slot name with digits and underscores is a slot name", SlotName("f", "pg_16390_sync_16385_7234"), false},
		{"a slot name with a capital is refused", SlotName("f", "Orders"), true},
		{"a slot name with a quote is refused", SlotName("f", "x'; DROP TABLE t; --"), true},
		{"an empty slot name is refused", SlotName("f", ""), true},
		{"a slot name of 64 bytes is refused", SlotName("f", strings.Repeat("a", 64)), true},
		{"no slot at all is allowed where a slot is optional", OptionalSlotName("f", ""), false},
		{"a name with spaces, quotes and capitals is a name", ObjectName("f", `My "odd" Table; --`), false},
		{"a name in bytes that are not UTF-8 is kept (SQL_ASCII)", ObjectName("f", "caf\xe9"), false},
		{"an empty name is refused", ObjectName("f", ""), true},
		{"a name of 64 bytes is refused", ObjectName("f", strings.Repeat("é", 32)), true},
		{"a name with a NUL byte is refused", ObjectName("f", "a\x00b"), true},
		{"a known value is accepted", OneOf("f", "error", []string{"error", "warning"}), false},
		{"an unknown value is refused", OneOf("f", "fatal", []string{"error", "warning"}), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if (c.err != nil) != c.bad {
				t.Errorf("error %v, want an error: %v", c.err, c.bad)
			}
		})
	}
}

// The error names the field and the value on one line, control characters
// escaped, long values cut.
func TestErrorIsOneLineNamingTheField(t *testing.T) {
	var c Checker
	c.Name(At("tables", 2)+".name", "ok")
	c.Slot(At("paths", 0)+".slot", "bad\nslot\x1b]52;c;x\x07"+strings.Repeat("x", 100))
	c.Slot("later", "Also bad") // the first error is kept
	msg := c.Err.Error()
	if strings.ContainsAny(msg, "\n\x1b\x07") || !strings.Contains(msg, "paths[0].slot") || len(msg) > 200 {
		t.Errorf("error %q: want one line naming paths[0].slot, control characters escaped", msg)
	}
}

func TestAStatementFromAFileIsOnePrintableLine(t *testing.T) {
	good := quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", "x'; DROP TABLE users; --").OnServer("subscriber")
	if err := Statement("run[0]", good); err != nil {
		t.Errorf("a statement the quoting layer built is refused: %v", err)
	}
	for name, s := range map[string]quote.Statement{
		"a line break in its text":       {Kind: quote.SQLKind, On: "subscriber", Text: "SELECT 1;\nDROP TABLE users;"},
		"an escape sequence in its note": {Kind: quote.SQLKind, Text: "SELECT 1;", Note: "\x1b]52;c;aGk=\x07"},
		"an unknown kind":                {Kind: "powershell", Text: "rm -r /"},
		"an unknown server":              {Kind: quote.SQLKind, On: "everywhere", Text: "SELECT 1;"},
		"no text and no reason":          {Kind: quote.SQLKind},
	} {
		if err := Statement("run[0]", s); err == nil || !strings.Contains(err.Error(), "run[0].") {
			t.Errorf("%s: got %v, want an error naming the field", name, err)
		}
	}
}
