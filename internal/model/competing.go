package model

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/measure"
)

// competingNames names the load on a starved process's CPUs: client
// backends by application_name and user (with their CPU share, or without
// /proc how many ran a statement at a tick on average), other processes by
// command and pid with their CPU share, busiest first. Names are hostile:
// quoted and escaped (%q). It returns "" when nothing was named.
func competingNames(c *measure.Competing, most int) string {
	if c == nil {
		return ""
	}
	var parts []string
	for _, b := range c.Backends {
		if c.CPUs != "" && b.CPUShare < measure.MinCompetingShare {
			continue
		}
		what := fmt.Sprintf("%d backend(s) of application_name %q, user %q", b.Count, b.App, b.User)
		if c.CPUs != "" {
			what += fmt.Sprintf(" (%s of a core)", pct(b.CPUShare))
		} else {
			what += fmt.Sprintf(" (%.1f active on average)", b.Active)
		}
		parts = append(parts, what)
	}
	for _, o := range c.Others {
		parts = append(parts, fmt.Sprintf("process %q pid %d (%s of a core)", o.Comm, o.PID, pct(o.CPUShare)))
	}
	if len(parts) > most {
		parts = append(parts[:most], fmt.Sprintf("%d more", len(parts)-most))
	}
	return strings.Join(parts, "; ")
}

// competingLine is the evidence line naming the load that shared a starved
// process's CPUs (no text when the recording did not read it: recordings
// before lagscope read it).
func competingLine(side, noun string, c *measure.Competing) Evidence {
	if c == nil {
		return Evidence{}
	}
	names := competingNames(c, 6)
	figs := Figures{}
	active := 0.0
	for _, b := range c.Backends {
		active += b.Active
	}
	figs["active_backends"] = active
	if c.CPUs == "" {
		if names == "" {
			return item(EvCompetingLoad, fmt.Sprintf("no client backend of the %s ran a statement beside lagscope's at the ticks (pg_stat_activity; without /proc, processes outside PostgreSQL are not seen)", side), figs)
		}
		return item(EvCompetingLoad, fmt.Sprintf("the %s's client backends running statements (pg_stat_activity, share of ticks; without /proc their CPU and processes outside PostgreSQL are not seen): %s", side, names), figs)
	}
	figs["cpu_share"] = c.CPUShare()
	if names == "" {
		return item(EvCompetingLoad, fmt.Sprintf("no other process used %s or more of a core on the CPUs the %s may run on (%s)", pct(measure.MinCompetingShare), noun, c.CPUs), figs)
	}
	return item(EvCompetingLoad, fmt.Sprintf("on the CPUs the %s may run on (%s), the competing load used %s of a core: %s", noun, c.CPUs, pct(c.CPUShare()), names), figs)
}

// unstarveRemedy is the unstarve remedy's text for a path whose competing
// load was read: what to move, limit or give CPUs to, by name.
func unstarveRemedy(base, noun string, c *measure.Competing) string {
	names := competingNames(c, 4)
	if names == "" {
		return base
	}
	return fmt.Sprintf("%s: move, limit or give other CPUs to what ran on the %s's CPUs (%s)", base, noun, names)
}
