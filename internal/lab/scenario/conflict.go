package scenario

import "strings"

// diagnosedConflict wants the conflicts of kind counted and named on 18+,
// and before 18 the report saying they are not counted.
func diagnosedConflict(p *problems, d Diagnosed, kind string) {
	c := d.Path.Conflicts
	switch v := d.Version; {
	case c == nil:
		p.add("no conflicts in the report")
	case v.Major >= 18 && (!c.Counted || c.Rose[kind] == 0 || !strings.Contains(c.Text, kind)):
		p.add("conflicts %+v: want %s counted and named on %s", c, kind, v)
	case v.Major < 18 && (c.Counted || !strings.Contains(c.Text, "not counted")):
		p.add("conflicts %+v: want 'not counted' on %s, and what to look at instead", c, v)
	default:
		d.logf("%s on %s: conflicts %s", kind, v, c.Text)
	}
}

// conflictsCounted is why the conflict cases run on every version: 18
// counts conflicts by kind (pg_stat_subscription_stats' confl_ columns)
// and the cause names the kind; before 18 only the apply errors are
// counted.
const conflictsCounted = "18 counts conflicts by kind and the cause names it; before 18 only apply errors are counted"
