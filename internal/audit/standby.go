package audit

import (
	"fmt"
	"strconv"
	"strings"
)

// What the standby checks (standby_*.go) share: whether a snapshot is a
// standby's, the primary's walsender and slot that feed it, and the
// standby's name in the primary's synchronous_standby_names.

// standbyApplies is the Applies of every standby check: a snapshot read
// from a file may hold a server that was not in recovery (check --standby
// refuses one when it reads it).
func standbyApplies(s Snapshots) string {
	if !s.Standby.InRecovery {
		return "the server given with --standby is not in recovery: it is not a standby"
	}
	return ""
}

// feed is the primary's walsender that streams to the standby: the one on
// the standby's slot, else the one physical walsender under the standby's
// application_name. why says why there is none (nil primary: "").
func (s Snapshots) feed() (w *Walsender, why string) {
	p, sb := s.Primary, s.Standby
	if p == nil || sb == nil {
		return nil, ""
	}
	if _, bad := p.Unreadable[PrimaryWalsenders]; bad {
		return nil, "the primary's walsenders could not be read"
	}
	if slot := sb.SlotName(); slot != "" {
		for i := range p.Walsenders {
			if p.Walsenders[i].Slot == slot {
				return &p.Walsenders[i], ""
			}
		}
	}
	var found []*Walsender
	for i := range p.Walsenders {
		w := &p.Walsenders[i]
		if !w.Logical && w.State != "backup" && w.ApplicationName == sb.ApplicationName() {
			found = append(found, w)
		}
	}
	switch len(found) {
	case 1:
		return found[0], ""
	case 0:
		return nil, fmt.Sprintf("no walsender of the primary streams to a standby named %s (application_name)%s: is --primary this standby's primary?",
			id(sb.ApplicationName()), onSlot(sb.SlotName()))
	}
	return nil, fmt.Sprintf("%d walsenders of the primary stream to standbys named %s (application_name): lagscope cannot tell which is this one",
		len(found), id(sb.ApplicationName()))
}

func onSlot(slot string) string {
	if slot == "" {
		return ""
	}
	return " or from slot " + id(slot)
}

// primarySlot is the primary's slot the standby streams from, or nil.
func (s Snapshots) primarySlot() *Slot {
	if s.Primary == nil || s.Standby == nil {
		return nil
	}
	name := s.Standby.SlotName()
	for i := range s.Primary.Slots {
		if sl := &s.Primary.Slots[i]; name != "" && sl.Name == name {
			return sl
		}
	}
	return nil
}

// syncStandbyNames parses synchronous_standby_names: 'a, b', 'FIRST 2 (a,
// "b c")', 'ANY 1 (a, b)', '2 (a, b)', '*'. It returns the method (first
// or any, "" when the setting is empty), how many standbys a commit waits
// for, and the names (unquoted; "*" matches any standby).
func syncStandbyNames(v string) (method string, num int, names []string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", 0, nil
	}
	method, num = "first", 1
	if open := strings.IndexByte(v, '('); open >= 0 && strings.HasSuffix(v, ")") {
		head := strings.Fields(v[:open])
		if len(head) == 2 {
			method = strings.ToLower(head[0])
			head = head[1:]
		}
		if len(head) == 1 {
			if n, err := strconv.Atoi(head[0]); err == nil {
				num = n
			}
		}
		v = v[open+1 : len(v)-1]
	}
	for _, n := range strings.Split(v, ",") {
		n = strings.TrimSpace(n)
		if len(n) >= 2 && n[0] == '"' && n[len(n)-1] == '"' {
			n = strings.ReplaceAll(n[1:len(n)-1], `""`, `"`)
		}
		if n != "" {
			names = append(names, n)
		}
	}
	return method, num, names
}

// namesStandby reports whether the list names application name app: a
// standby name matches case-insensitively (as the server compares them),
// and "*" matches every standby.
func namesStandby(names []string, app string) bool {
	for _, n := range names {
		if n == "*" || strings.EqualFold(n, app) {
			return true
		}
	}
	return false
}

// showMillis prints a time setting as SHOW would, from its value in ms.
func showMillis(ms int64) string {
	switch {
	case ms%(60*60*1000) == 0 && ms > 0:
		return fmt.Sprintf("%dh", ms/(60*60*1000))
	case ms%(60*1000) == 0 && ms > 0:
		return fmt.Sprintf("%dmin", ms/(60*1000))
	case ms%1000 == 0 && ms > 0:
		return fmt.Sprintf("%ds", ms/1000)
	}
	return fmt.Sprintf("%dms", ms)
}

// millis reads a time setting in milliseconds whatever its unit (ms, s,
// min).
func millis(set Settings, name string) (int64, bool) {
	n, ok := set.Int(name)
	if !ok || n < 0 {
		return n, ok
	}
	switch set[name].Unit {
	case "ms", "":
		return n, true
	case "s":
		return n * 1000, true
	case "min":
		return n * 60 * 1000, true
	}
	return 0, false
}
