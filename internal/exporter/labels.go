package exporter

import (
	"strings"
	"unicode/utf8"

	"github.com/lagscope/lagscope/internal/measure"
	"github.com/lagscope/lagscope/internal/sample"
)

// labelValue makes a name that other database users chose (a slot, a
// subscription, a pair) a valid label value: Prometheus takes only valid
// UTF-8, and a SQL_ASCII database holds names with any byte.
//
// A name that is valid UTF-8 and holds no `\x` is kept as it is (every name
// seen in practice). Any other name is escaped: each byte that is not part
// of valid UTF-8 is written \xNN (two lowercase hex digits) and each
// backslash is doubled, so "odd\xff" (the byte) is exported as `odd\xff`
// (the six characters) and a valid name that spells `a\x41` as `a\\x41`.
// Two different names never share a label value: every escaped value
// holds `\x` and no kept one does, and the escaping reads back.
func labelValue(s string) string {
	if utf8.ValidString(s) && !strings.Contains(s, `\x`) {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// TablesyncSlots is the slot label value under which every tablesync slot
// (pg_<suboid>_sync_<relid>_<sysid>, one per table a subscription copies)
// is exported: an initial sync of thousands of tables makes thousands of
// such slots, one after another, and one series each would leave as many
// behind. No real slot can be named so (slot names are lower-case
// letters, digits and underscores).
const TablesyncSlots = "pg_*_sync_*"

// slotKey is the name a slot's counters and gauges are kept under:
// TablesyncSlots for a tablesync slot, the slot's own name otherwise.
func slotKey(name string) string {
	if _, _, ok := measure.TablesyncSlot(name); ok {
		return TablesyncSlots
	}
	return name
}

// jsonNames maps a subscription's name as JSON carries it back to the name
// the subscriber gave, for the subscriptions of t (nil: none). The setup
// the replication limits are read from passes through JSON, which turns
// each byte that is not UTF-8 into U+FFFD: "odd\xff" arrives as "odd\uFFFD"
// and, untranslated, would be exported under another label value than the
// path's. Only names that differ in JSON are listed; one that two
// subscriptions share in JSON is left out (exported as JSON has it).
func jsonNames(t *sample.Tick) map[string]string {
	if t == nil {
		return nil
	}
	out, twice := map[string]string{}, map[string]bool{}
	for _, sub := range t.Read(sample.SubscriberNode).Subs {
		j := asJSON(sub.Name)
		if j == sub.Name {
			continue
		}
		if _, ok := out[j]; ok {
			twice[j] = true
		}
		out[j] = sub.Name
	}
	for j := range twice {
		delete(out, j)
	}
	return out
}

// asJSON is s as encoding/json writes it: each byte that is not part of
// valid UTF-8 replaced by U+FFFD.
func asJSON(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
