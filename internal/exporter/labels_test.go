package exporter

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lagscope/lagscope/internal/sample"
)

func TestLabelValues(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"a plain name is kept", "lab_sub", "lab_sub"},
		{"a non-ASCII name in valid UTF-8 is kept", "café_sub", "café_sub"},
		{"a valid U+FFFD is kept", "a\uFFFDb", "a\uFFFDb"},
		{"a byte that is not UTF-8 is written as \\xNN", "odd\xff", `odd\xff`},
		{"two bytes that do not make a character are escaped one by one", "a\xe2\x82", `a\xe2\x82`},
		{"a backslash in an escaped name is doubled", "a\\b\xfe", `a\\b\xfe`},
		{"a valid name that spells \\x is escaped, so it never meets an escaped byte", `odd\xff`, `odd\\xff`},
		{"a backslash not followed by x is kept in a valid name", `a\b`, `a\b`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := labelValue(c.in); got != c.want {
				t.Errorf("labelValue(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// unescapeLabel reads labelValue's output back (ok false when it is not
// an escaping labelValue can make).
func unescapeLabel(v string) (string, bool) {
	if !strings.Contains(v, `\x`) {
		return v, true
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			b.WriteByte(v[i])
			continue
		}
		switch {
		case i+1 < len(v) && v[i+1] == '\\':
			b.WriteByte('\\')
			i++
		case i+3 < len(v) && v[i+1] == 'x':
			n, err := strconv.ParseUint(v[i+2:i+4], 16, 8)
			if err != nil {
				return "", false
			}
			b.WriteByte(byte(n))
			i += 3
		default:
			return "", false
		}
	}
	return b.String(), true
}

// Any name becomes a valid UTF-8 label value from which the name reads
// back: two different names never share a series.
func FuzzLabelValue(f *testing.F) {
	for _, s := range []string{"lab_sub", "odd\xff", `odd\xff`, `odd\\xff`, "a\\b\xfe", "\xe2\x82", "café", "\uFFFD", `\x`, `\\x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := labelValue(s)
		if !utf8.ValidString(v) {
			t.Fatalf("labelValue(%q) = %q: not valid UTF-8", s, v)
		}
		if back, ok := unescapeLabel(v); !ok || back != s {
			t.Fatalf("labelValue(%q) = %q reads back as %q (ok %v): two names could share it", s, v, back, ok)
		}
	})
}

func TestTablesyncSlotsShareOneKey(t *testing.T) {
	for _, c := range []struct{ name, slot, want string }{
		{"a subscription's slot keeps its name", "lab_sub", "lab_sub"},
		{"a tablesync slot is kept under the shared key", "pg_16392_sync_16385_7714140764453564348", TablesyncSlots},
		{"a slot that only looks like one is its own", "pg_16392_sync_x", "pg_16392_sync_x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := slotKey(c.slot); got != c.want {
				t.Errorf("slotKey(%q) = %q, want %q", c.slot, got, c.want)
			}
		})
	}
}

// asJSON agrees with encoding/json on every name.
func FuzzAsJSON(f *testing.F) {
	for _, s := range []string{"lab_sub", "odd\xff", "a\xe2\x82b", "\xff\xfe", "café"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got := asJSON(s); got != back {
			t.Fatalf("asJSON(%q) = %q, encoding/json makes %q", s, got, back)
		}
	})
}

func TestSubscriptionNamesComeBackFromJSON(t *testing.T) {
	tick := &sample.Tick{Reads: []sample.Read{{Node: sample.SubscriberNode, Subs: []sample.Sub{{Name: "lab_sub"}, {Name: "odd\xff"}, {Name: "twin\xfe"}, {Name: "twin\xfd"}}}}}
	got := jsonNames(tick)
	if len(got) != 1 || got["odd\uFFFD"] != "odd\xff" {
		t.Errorf("jsonNames = %q, want only odd\\uFFFD -> odd\\xff (lab_sub is the same in JSON, the twins share one JSON name)", got)
	}
}
