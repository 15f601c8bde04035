package lab

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// A Change is one remedy the lab makes on a pair held in a scenario's
// state ('lagscope lab whatif'), so that what the report predicted for it
// can be measured. Its name is the prediction's (whatif.Remedy.Change).
type Change struct {
	Name    string
	Summary string
	// Scenarios are the states it is measured from, the first the default.
	Scenarios []string
	// Apply makes the change on the pair, while the backlog drains.
	Apply func(ctx context.Context, p *Pair) error
}

// Changes lists the changes the lab can make, by name.
var Changes = []Change{
	{Name: "link=2x", Summary: "the link's rate doubled (the proxy's rate, at once)", Scenarios: []string{"network"},
		Apply: func(_ context.Context, p *Pair) error {
			if p.Proxy == nil || p.Opts.LinkRate <= 0 {
				return errors.New("the pair has no rate-limited link: use the network scenario")
			}
			p.Proxy.SetRate(2 * p.Opts.LinkRate)
			return nil
		}},
	{Name: "drop-extra-indexes", Summary: "the subscriber's extra indexes on hot dropped", Scenarios: []string{"apply-bound", "sub-cpu-io"},
		Apply: func(ctx context.Context, p *Pair) error {
			if p.Opts.SubIndexes <= 0 {
				return errors.New("the subscriber's hot has no extra index: use apply-bound")
			}
			var stmts []string
			for i := range p.Opts.SubIndexes {
				stmts = append(stmts, fmt.Sprintf("DROP INDEX hot_extra_%d", i))
			}
			return Exec(ctx, p.Sub.ConnString(Database), stmts...)
		}},
	{Name: "disable-trigger", Summary: "the row trigger that fires in the apply worker disabled", Scenarios: []string{"trigger-sleep", "trigger-cpu"},
		Apply: func(ctx context.Context, p *Pair) error {
			return Exec(ctx, p.Sub.ConnString(Database), "ALTER TABLE hot DISABLE TRIGGER "+TriggerName)
		}},
	{Name: "index-for-full", Summary: "a primary key on the subscriber's hot (id), which the apply worker uses to find the REPLICA IDENTITY FULL rows on every version", Scenarios: []string{"full-identity"},
		Apply: func(ctx context.Context, p *Pair) error {
			return Exec(ctx, p.Sub.ConnString(Database), "ALTER TABLE hot ADD PRIMARY KEY (id)")
		}},
}

// LookupChange finds a change by name and checks that it fits the
// scenario ("" picks the change's default scenario).
func LookupChange(name, scenario string) (Change, string, error) {
	for _, c := range Changes {
		if c.Name != name {
			continue
		}
		if scenario == "" {
			return c, c.Scenarios[0], nil
		}
		for _, s := range c.Scenarios {
			if s == scenario {
				return c, s, nil
			}
		}
		return Change{}, "", fmt.Errorf("--change %s is measured from %s, not %s", name, strings.Join(c.Scenarios, " or "), scenario)
	}
	return Change{}, "", fmt.Errorf("unknown change %q: choose one of %s", name, strings.Join(ChangeNames(), ", "))
}

// ChangeNames lists the changes' names, sorted.
func ChangeNames() []string {
	n := make([]string, len(Changes))
	for i, c := range Changes {
		n[i] = c.Name
	}
	sort.Strings(n)
	return n
}
