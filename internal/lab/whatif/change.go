package whatif

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/sleep"
	"github.com/lagscope/lagscope/internal/units"
)

// A Change is one remedy the lab makes on a pair held in a scenario's
// state ('lagscope lab whatif'), so that what the report predicted for it
// can be measured. Its name is the prediction's (model.Remedy.Change, by
// its constant).
type Change struct {
	Name    string
	Summary string
	// Scenarios are the states it is measured from, the first the default.
	Scenarios []lab.ScenarioName
	// Apply makes the change on the pair, while the backlog drains; load
	// is the scenario's running load (nil when none runs).
	Apply func(ctx context.Context, p *lab.Pair, load *lab.Load) error
	// LinkTo is the rate of a link=RATE change: the report is asked for
	// the drain over a link of that rate (diagnose --what-if-link).
	LinkTo units.ByteRate
	// More, when set, queues more backlog behind the state's own before
	// its subscriptions are enabled: a state whose backlog is small in
	// bytes (a slow apply of few changes) would drain in a fraction of a
	// second once the change is made, too soon for a rate (For).
	More *lab.Step
	// Physical says the change is made on a physical standby
	// (PhysicalChanges): the state's steps named in Without are left out
	// (the release of a paused replay), During runs during the first
	// diagnose window, and the catch-up after Apply is timed (PhysicalRun).
	Physical bool
	Without  []string
	During   func(ctx context.Context, p *lab.Pair) error
}

// For returns the scenario as the change measures it: with More queued
// behind the state's own backlog, before the step that enables the
// subscriptions.
func (c Change) For(s lab.Recipe) lab.Recipe {
	if len(c.Without) > 0 {
		s.Steps = slices.DeleteFunc(slices.Clone(s.Steps), func(st lab.Step) bool { return slices.Contains(c.Without, st.Name) })
	}
	if c.More == nil {
		return s
	}
	steps := make([]lab.Step, 0, len(s.Steps)+1)
	added := false
	for _, st := range s.Steps {
		if st.Name == lab.Enable.Name && !added {
			steps, added = append(steps, *c.More), true
		}
		steps = append(steps, st)
	}
	if !added {
		steps = append(steps, *c.More)
	}
	s.Steps = steps
	return s
}

// Changes lists the changes the lab can make, by name.
var Changes = []Change{
	{Name: string(model.KeyLinkTwice), Summary: "the link's rate doubled (the proxy's rate, at once)", Scenarios: []lab.ScenarioName{"network"},
		Apply: func(_ context.Context, p *lab.Pair, _ *lab.Load) error {
			return setLinkRate(p, 2*p.Opts.LinkRate)
		}},
	{Name: string(model.KeyLinkRate), Summary: "the link's rate set to RATE (8MB/s, 100Mbit/s: faster than --rate); the report is told both rates (diagnose --link-rate, --what-if-link)", Scenarios: []lab.ScenarioName{"network"},
		Apply: func(context.Context, *lab.Pair, *lab.Load) error {
			return errors.New("give the link's new rate: link=8MB/s")
		}},
	// The indexes the subscriber's hot has beyond its primary key are read
	// from its catalog: the recipe's btree indexes (SubIndexes) and
	// expression-index's GIN index alike.
	{Name: string(model.KeyDropExtraIndexes), Summary: "the subscriber's extra indexes on hot dropped (every index but its primary key)", Scenarios: []lab.ScenarioName{"apply-bound", "sub-cpu-io", "expression-index"},
		Apply: dropExtraIndexes},
	// The trigger states' backlogs (150-300 MB) drain within seconds of the
	// trigger, the apply worker still well under saturation (39% busy on
	// 16.14): half a window more of the load behind them makes the drain
	// after the change the apply worker's rate.
	{Name: string(model.KeyDisableTrigger), Summary: "the row trigger that fires in the apply worker disabled (the 16-client load queues more backlog behind the state's, so the drain after it has a rate)", Scenarios: []lab.ScenarioName{"trigger-sleep", "trigger-cpu"},
		More: ptr(lab.MoreBacklog(0.5)),
		Apply: func(ctx context.Context, p *lab.Pair, _ *lab.Load) error {
			return lab.Exec(ctx, p.Sub.ConnString(lab.Database), "ALTER TABLE hot DISABLE TRIGGER "+lab.TriggerName)
		}},
	// check-constraint's backlog drains as the trigger states' do: more of
	// the load behind it, for the same reason.
	{Name: string(model.KeyDropConstraint), Summary: "the costly CHECK constraint on the subscriber's hot dropped (the 16-client load queues more backlog behind the state's, so the drain after it has a rate)", Scenarios: []lab.ScenarioName{"check-constraint"},
		More: ptr(lab.MoreBacklog(0.5)),
		Apply: func(ctx context.Context, p *lab.Pair, _ *lab.Load) error {
			return lab.Exec(ctx, p.Sub.ConnString(lab.Database), quote.SQL("ALTER TABLE hot DROP CONSTRAINT %I", lab.CheckName).Text)
		}},
	// full-identity's backlog is a few thousand updates (1-2 MB), gone
	// 0.1-0.2 s after the key: the 16-client load queues more of the same
	// single-row updates behind it (80 s at the default 40 s --duration),
	// which the apply worker, once it finds rows by the key, takes longer
	// than the measurement to drain.
	{Name: string(model.KeyIndexForFull), Summary: "a primary key on the subscriber's hot (id), which the apply worker uses to find the REPLICA IDENTITY FULL rows on every version (the 16-client load queues more backlog behind the state's, so the drain after it has a rate)", Scenarios: []lab.ScenarioName{"full-identity"},
		More: ptr(lab.MoreSingleUpdates(2)),
		Apply: func(ctx context.Context, p *lab.Pair, _ *lab.Load) error {
			return lab.Exec(ctx, p.Sub.ConnString(lab.Database), "ALTER TABLE hot ADD PRIMARY KEY (id)")
		}},
	// The starved states' changes give the process its CPU back by taking
	// away what shares it (this machine has no third CPU to move it to):
	// the publisher's load, the subscriber's CPU-bound sessions.
	{Name: string(model.KeyUnstarveWalsender), Summary: "the load that shares the publisher's CPU with the walsender stopped (the walsender gets its CPU)", Scenarios: []lab.ScenarioName{"walsender-starved"},
		Apply: func(_ context.Context, _ *lab.Pair, load *lab.Load) error {
			if load == nil {
				return errors.New("no load runs on the publisher: use walsender-starved")
			}
			load.Stop()
			return nil
		}},
	{Name: string(model.KeyUnstarveApply), Summary: "the CPU-bound sessions that share the subscriber's CPU with the apply worker stopped", Scenarios: []lab.ScenarioName{"subscriber-starved"},
		Apply: func(_ context.Context, p *lab.Pair, _ *lab.Load) error {
			if !p.HogsRunning() {
				return errors.New("no CPU-bound session runs on the subscriber: use subscriber-starved")
			}
			p.StopHogs()
			return nil
		}},
	{Name: string(model.KeyBinaryOn), Summary: "ALTER SUBSCRIPTION ... SET (binary = true) on every subscription (its apply worker restarts with it)", Scenarios: []lab.ScenarioName{"apply-text"},
		Apply: func(ctx context.Context, p *lab.Pair, _ *lab.Load) error {
			if p.Opts.Binary {
				return errors.New("the pair's subscriptions use binary = true already: use apply-text")
			}
			return alterRestart(ctx, p, "binary = true")
		}},
}

// Control is the change that changes nothing: 'lab whatif --change none'
// measures how a state's drain moves by itself between the two windows
// (its tables growing under the updates, the machine's noise), against
// which a change's measured/predicted ratio can be read. Its prediction is
// today's drain.
var Control = Change{Name: "none", Summary: "nothing changed: the drain measured again, as a control for the other changes' ratios",
	Scenarios: []lab.ScenarioName{"apply-text", "apply-bound", "trigger-sleep", "full-identity", "walsender-starved", "subscriber-starved", "network"},
	Apply:     func(context.Context, *lab.Pair, *lab.Load) error { return nil }}

// alterRestart sets a subscription option on every subscription and waits
// until each apply worker has restarted with it (a new pid), so that the
// measurement starts with the change in effect rather than with the
// launcher's restart.
func alterRestart(ctx context.Context, p *lab.Pair, option string) error {
	dsn := p.Sub.ConnString(lab.Database)
	workers := "SELECT coalesce(string_agg(pid::text, ',' ORDER BY subname), '') FROM pg_stat_subscription WHERE relid IS NULL AND pid IS NOT NULL"
	before, err := lab.Query[string](ctx, dsn, workers)
	if err != nil {
		return err
	}
	var stmts []string
	for _, s := range p.Subscriptions {
		stmts = append(stmts, fmt.Sprintf("ALTER SUBSCRIPTION %s SET (%s)", s, option))
	}
	if err := lab.Exec(ctx, dsn, stmts...); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		now, err := lab.Query[string](ctx, dsn, workers)
		if err != nil {
			return err
		}
		if now != before && strings.Count(now, ",") == len(p.Subscriptions)-1 && now != "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the apply workers did not restart within 30 s of SET (%s) (pids %q, before %q)", option, now, before)
		}
		if err := sleep.For(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// dropExtraIndexes drops every index of the subscriber's hot but its
// primary key, read from pg_index (names quoted by the server: they are
// the lab's own, but read back from a catalog).
func dropExtraIndexes(ctx context.Context, p *lab.Pair, _ *lab.Load) error {
	dsn := p.Sub.ConnString(lab.Database)
	stmts, err := lab.Query[[]string](ctx, dsn, `SELECT coalesce(array_agg(format('DROP INDEX %I.%I', n.nspname, c.relname) ORDER BY c.relname), '{}')
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE i.indrelid = 'hot'::regclass AND NOT i.indisprimary`)
	if err != nil {
		return err
	}
	if len(stmts) == 0 {
		return errors.New("the subscriber's hot has no index but its primary key: use apply-bound or expression-index")
	}
	return lab.Exec(ctx, dsn, stmts...)
}

// AllChanges is Changes, PhysicalChanges and, last, Control: what 'lab whatif --change'
// accepts.
func AllChanges() []Change { return slices.Concat(Changes, PhysicalChanges, []Change{Control}) }

// LookupChange finds a change by name (Control too) and checks that it
// fits the scenario ("" picks the change's default scenario). A name made
// on a logical and on a physical path (link=2x) is one change per state.
func LookupChange(name, scenario string) (Change, string, error) {
	var from []string
	for _, c := range AllChanges() {
		switch {
		case c.Name == string(model.KeyLinkRate) && strings.HasPrefix(name, "link=") && name != string(model.KeyLinkTwice):
			r, err := units.ParseByteRate(strings.TrimPrefix(name, "link="))
			if err != nil || r <= 0 {
				return Change{}, "", fmt.Errorf("--change %s: give the rate the link is set to, as link=8MB/s or link=100Mbit/s", name)
			}
			c = linkTo(c, r)
		case c.Name != name:
			continue
		}
		if scenario == "" {
			return c, string(c.Scenarios[0]), nil
		}
		for _, s := range c.Scenarios {
			if string(s) == scenario {
				return c, scenario, nil
			}
		}
		from = append(from, ScenarioNames(c.Scenarios)...)
	}
	if len(from) > 0 {
		return Change{}, "", fmt.Errorf("--change %s is measured from %s, not %s", name, strings.Join(from, " or "), scenario)
	}
	return Change{}, "", fmt.Errorf("unknown change %q: choose one of %s", name, strings.Join(ChangeNames(), ", "))
}

// ChangeNames lists the changes' names, sorted.
func ChangeNames() []string {
	var n []string
	for _, c := range AllChanges() {
		if !slices.Contains(n, c.Name) {
			n = append(n, c.Name)
		}
	}
	sort.Strings(n)
	return n
}

func ptr[T any](v T) *T { return &v }

// linkTo is the link=RATE change c made for rate r: it sets the proxy's
// rate to r at once.
func linkTo(c Change, r units.ByteRate) Change {
	c.Name, c.LinkTo = "link="+r.String(), r
	c.Summary = fmt.Sprintf("the link's rate set to %s (the proxy's rate, at once)", r)
	c.Apply = func(_ context.Context, p *lab.Pair, _ *lab.Load) error {
		if p.Opts.LinkRate > 0 && r <= p.Opts.LinkRate {
			return fmt.Errorf("link=%s is not faster than the pair's link, %s: give a higher rate or a lower --rate", r, p.Opts.LinkRate)
		}
		return setLinkRate(p, r)
	}
	return c
}

// setLinkRate sets the pair's rate-limited link to r at once.
func setLinkRate(p *lab.Pair, r units.ByteRate) error {
	if p.Proxy == nil || p.Opts.LinkRate <= 0 {
		return errors.New("the pair has no rate-limited link: use the network scenario")
	}
	p.Proxy.SetRate(r)
	return nil
}

// ScenarioNames are names as strings, to list them.
func ScenarioNames(ns []lab.ScenarioName) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n)
	}
	return out
}
