package audit

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// Severity is how bad a finding is.
type Severity string

// Severities, worst first. Errors and warnings make 'lagscope check' exit 1;
// info findings do not.
const (
	Error   Severity = "error"   // replication is broken or will break
	Warning Severity = "warning" // lag or risk designed in
	Info    Severity = "info"    // a trade-off worth knowing
)

// rank orders severities: error 0, warning 1, info 2.
func (s Severity) rank() int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// Side is which server a check reads.
type Side string

// Sides.
const (
	PublisherSide  Side = "publisher"
	SubscriberSide Side = "subscriber"
	BothSides      Side = "both"
	// StandbySide is a physical standby (check --standby); such a check may
	// read its primary (--primary) too, through the sections it needs.
	StandbySide Side = "standby"
	// primaryServer is the standby's primary: a server checks read (their
	// Needs), never a check's Side.
	primaryServer Side = "primary"
)

// CheckID names a check: stable, kebab-case, and the name of the check's
// page in docs/checks/. Each check's constant (CheckWALLevel, ...) is
// declared in the check's own file, beside its definition; code outside
// this package names a check by its constant, never by a string literal
// (a test in package layers holds the tree to it).
type CheckID string

// Check is one static check. Run is pure: it reads the snapshots and returns
// the findings (none when all is well).
type Check struct {
	// ID is stable and names the check's page in docs/checks/ (kebab-case).
	ID    CheckID
	Title string
	// Severity is the worst severity the check reports.
	Severity Severity
	// MinVersion and MaxVersion bound the PostgreSQL major versions of the
	// server(s) on Side the check applies to (0 = no bound). For BothSides
	// the subscriber's version counts.
	MinVersion, MaxVersion int
	// VersionNote says why the check does not apply outside those versions.
	VersionNote string
	Side        Side
	// Needs are the snapshot sections the check reads; when one is
	// unreadable the check is "not checked".
	Needs []Section
	// Applies, if set, returns why the check does not apply to these
	// snapshots ("" = it applies). It is consulted after the version bounds.
	Applies func(Snapshots) string
	Run     func(Snapshots) []Finding
}

// Finding is one problem a check found.
type Finding struct {
	Check    string   `json:"check"`
	Severity Severity `json:"severity"`
	// Objects name what the finding is about: "slot lab_sub",
	// "table public.hot", "subscription lab_sub".
	Objects []string `json:"objects"`
	// Found says what was found, with the numbers.
	Found string `json:"found"`
	// Why says why it matters, with the measured cost where one is known.
	Why string `json:"why"`
	// Fix says what fixes it, in prose: no statement is written into it.
	Fix string `json:"fix"`
	// Run are the statements and commands of the fix, in order, each built by
	// the quoting layer and naming exactly the objects of the finding.
	Run []quote.Statement `json:"run,omitempty"`
}

// Status is the outcome of one check.
type Status string

// Statuses.
const (
	StatusOK            Status = "ok"
	StatusFindings      Status = "findings"
	StatusNotApplicable Status = "not-applicable"
	StatusNotChecked    Status = "not-checked"
)

// Result is the outcome of one check on one pair of snapshots.
type Result struct {
	Check    string    `json:"check"`
	Title    string    `json:"title"`
	Side     Side      `json:"side"`
	Status   Status    `json:"status"`
	Reason   string    `json:"reason,omitempty"` // for not-applicable and not-checked
	Findings []Finding `json:"findings,omitempty"`
}

// Run evaluates checks in order over s.
func Run(s Snapshots, checks []Check) []Result {
	out := make([]Result, 0, len(checks))
	for _, c := range checks {
		r := Result{Check: string(c.ID), Title: c.Title, Side: c.Side}
		switch st, why := c.status(s); st {
		case StatusNotApplicable, StatusNotChecked:
			r.Status, r.Reason = st, why
		default:
			r.Findings = c.Run(s)
			r.Status = StatusOK
			for i := range r.Findings {
				r.Findings[i].Check = string(c.ID)
				if r.Findings[i].Severity == "" {
					r.Findings[i].Severity = c.Severity
				}
			}
			if len(r.Findings) > 0 {
				r.Status = StatusFindings
			}
		}
		out = append(out, r)
	}
	return out
}

// status decides whether c can run on s: not checked (a side or section is
// missing), not applicable (version, Applies), or "" (run it).
func (c Check) status(s Snapshots) (Status, string) {
	need := map[Side]bool{}
	switch c.Side {
	case BothSides:
		need[PublisherSide], need[SubscriberSide] = true, true
	default:
		need[c.Side] = true
	}
	for _, n := range c.Needs {
		need[n.server()] = true
	}
	var missing []string
	for _, sv := range []struct {
		side Side
		flag string
		read bool
	}{
		{PublisherSide, "--publisher", s.Publisher != nil},
		{SubscriberSide, "--subscriber", s.Subscriber != nil},
		{StandbySide, "--standby", s.Standby != nil},
		{primaryServer, "--primary", s.Primary != nil},
	} {
		if need[sv.side] && !sv.read {
			missing = append(missing, sv.flag)
		}
	}
	if len(missing) > 0 {
		return StatusNotChecked, "needs " + strings.Join(missing, " and ")
	}
	major, server := 0, ""
	switch c.Side {
	case PublisherSide:
		major, server = s.Publisher.Version.Major, "publisher"
	case StandbySide:
		major, server = s.Standby.Version.Major, "standby"
	default:
		major, server = s.Subscriber.Version.Major, "subscriber"
	}
	if (c.MinVersion > 0 && major < c.MinVersion) || (c.MaxVersion > 0 && major > c.MaxVersion) {
		why := fmt.Sprintf("the %s runs PostgreSQL %d; this check is for %s", server, major, versionRange(c.MinVersion, c.MaxVersion))
		if c.VersionNote != "" {
			why += ": " + c.VersionNote
		}
		return StatusNotApplicable, why
	}
	var unreadable []string
	for _, n := range c.Needs {
		why := s.unreadable(n)
		if why != "" && !contains(unreadable, why) {
			unreadable = append(unreadable, why)
		}
	}
	if len(unreadable) > 0 {
		return StatusNotChecked, strings.Join(unreadable, "; ")
	}
	if c.Applies != nil {
		if why := c.Applies(s); why != "" {
			return StatusNotApplicable, why
		}
	}
	return "", ""
}

// unreadable is why section n could not be read ("" when it was, or its
// server was not given).
func (s Snapshots) unreadable(n Section) string {
	switch n.server() {
	case PublisherSide:
		if s.Publisher != nil {
			return s.Publisher.Unreadable[n]
		}
	case SubscriberSide:
		if s.Subscriber != nil {
			return s.Subscriber.Unreadable[n]
		}
	case StandbySide:
		if s.Standby != nil {
			return s.Standby.Unreadable[n]
		}
	case primaryServer:
		if s.Primary != nil {
			return s.Primary.Unreadable[n]
		}
	}
	return ""
}

// versionRange prints "PostgreSQL 14+", "PostgreSQL 13-15" or "every version".
func versionRange(lo, hi int) string {
	switch {
	case lo > 0 && hi > 0:
		return fmt.Sprintf("PostgreSQL %d-%d", lo, hi)
	case lo > 0:
		return fmt.Sprintf("PostgreSQL %d+", lo)
	case hi > 0:
		return fmt.Sprintf("PostgreSQL up to %d", hi)
	}
	return "every version"
}
