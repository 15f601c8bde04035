package monitor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// SharesSampler says whether pairs a and b can be sampled together: the
// same publisher (connection string), and the same sampling (step, tick,
// probe rate, /proc, wait-event source, bursts, query text). A physical
// standby's path (--primary/--standby) is sampled on its own.
func SharesSampler(a, b Options) bool {
	da, db := a.Diagnose, b.Diagnose
	return !da.Physical() && !db.Physical() && da.Publisher == db.Publisher && a.Step == b.Step && a.OnTick == nil && b.OnTick == nil &&
		da.Tick == db.Tick && da.ProbeHz == db.ProbeHz && da.NoProc == db.NoProc && da.NoWaitSampling == db.NoWaitSampling &&
		da.AlwaysBurst == db.AlwaysBurst && da.KeepQueryLiterals == db.KeepQueryLiterals
}

// Groups splits pairs into groups that SharesSampler joins, in the order
// of their first pair; each pair keeps its order within its group.
func Groups(pairs []Options) [][]Options {
	var out [][]Options
next:
	for _, p := range pairs {
		for i, g := range out {
			if SharesSampler(g[0], p) {
				out[i] = append(g, p)
				continue next
			}
		}
		out = append(out, []Options{p})
	}
	return out
}

// RunGroup watches pairs that share their sampler (Groups) until ctx ends,
// calling publish after every step of each pair (from RunGroup's
// goroutine): each server is sampled once a step for all the pairs that
// read it (sample.RunNodes), and each pair's rolling window, diagnosis and
// failures are its own. A group of one pair is Run. Each of pairs must
// have passed Validate.
func RunGroup(ctx context.Context, pairs []Options, publish func(Update)) {
	if len(pairs) == 1 {
		Run(ctx, pairs[0], publish)
		return
	}
	g := newGroup(pairs)
	defer g.close()
	backoff := time.Second
	for ctx.Err() == nil {
		us := g.step(ctx)
		if ctx.Err() != nil {
			return
		}
		answered := false
		for _, u := range us {
			publish(u)
			answered = answered || u.Err == nil
		}
		if answered {
			backoff = time.Second
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, MaxBackoff, pairs[0].Window)
	}
}

// group is RunGroup's state: the pairs' watchers (each preflight and setup
// read on the pair's own sessions, closed after them) and the shared
// sampler's nodes and sessions.
type group struct {
	pairs []*watcher
	// subOf is each pair's subscriber node ("" without one).
	subOf []topology.NodeID
	nodes []topology.Node
	dsn   map[topology.NodeID]string
	ss    *diagnose.Sessions // the sampler's sessions, by node id
	mu    sync.Mutex
	down  map[topology.NodeID]string // node -> connection error, this step
}

// groupPublisher is the id of a group's publisher node.
const groupPublisher = sample.PublisherNode

// newGroup lays out pairs' nodes: their publisher, and each distinct
// subscriber once.
func newGroup(pairs []Options) *group {
	g := &group{dsn: map[topology.NodeID]string{groupPublisher: pairs[0].Diagnose.Publisher}, down: map[topology.NodeID]string{},
		nodes: []topology.Node{{ID: groupPublisher, Role: topology.Publisher}}}
	byDSN := map[string]topology.NodeID{}
	for _, o := range pairs {
		g.pairs = append(g.pairs, &watcher{o: o, down: map[string]string{}})
		id, dsn := topology.NodeID(""), o.Diagnose.Subscriber
		if dsn != "" {
			if id = byDSN[dsn]; id == "" {
				id = topology.NodeID(fmt.Sprintf("%s-%d", sample.Subscriber, len(byDSN)+1))
				byDSN[dsn], g.dsn[id] = id, dsn
				g.nodes = append(g.nodes, topology.Node{ID: id, Role: topology.Subscriber})
			}
		}
		g.subOf = append(g.subOf, id)
	}
	g.ss = diagnose.NewSessions(func(ctx context.Context, node string) (*pg.Conn, error) {
		role := sample.Publisher
		if topology.NodeID(node) != groupPublisher {
			role = sample.Subscriber
		}
		return pg.Connect(ctx, g.dsn[topology.NodeID(node)], role)
	})
	return g
}

// connect hands out node's kept sampling session, or opens one and notes
// why it failed.
func (g *group) connect(ctx context.Context, node string) (*pg.Conn, error) {
	c, err := g.ss.Connect(ctx, node)
	if err != nil {
		g.mu.Lock()
		g.down[topology.NodeID(node)] = pg.Redact(err.Error())
		g.mu.Unlock()
	}
	return c, err
}

// step prepares each pair, samples the nodes of those prepared once, and
// finishes each pair with its cut of the window: one Update per pair, in
// order.
func (g *group) step(ctx context.Context) []Update {
	us := make([]Update, len(g.pairs))
	var live []int
	nodes := []topology.Node{g.nodes[0]}
	for i, w := range g.pairs {
		err := w.prepare(ctx)
		w.closeKept() // the sampler has sessions of its own
		if err != nil {
			us[i] = w.failed(Update{Pair: w.o.Pair}, err)
			continue
		}
		live = append(live, i)
		for _, n := range g.nodes[1:] {
			if n.ID == g.subOf[i] && !containsNode(nodes, n.ID) {
				nodes = append(nodes, n)
			}
		}
	}
	if len(live) == 0 {
		return us
	}
	g.mu.Lock()
	clear(g.down)
	g.mu.Unlock()
	lead := g.pairs[live[0]].o
	so := lead.Diagnose.SampleOptions(lead.Step)
	so.Release = g.ss.Keep
	win, runErr := sample.RunNodes(ctx, g.connect, nodes, so)
	for _, i := range live {
		w := g.pairs[i]
		var rec *sample.Recording
		err := runErr
		if err == nil {
			// A subscriber that could not be opened fails its pair alone.
			rec, err = win.Pair(groupPublisher, g.subOf[i])
		}
		if err != nil {
			g.blame(w, g.subOf[i])
			us[i] = w.failed(Update{Pair: w.o.Pair}, asPair(err, g.subOf[i]))
			continue
		}
		us[i] = w.finish(rec)
	}
	return us
}

// blame copies the sampler's connection errors of the pair's nodes into
// the pair's, named by the pair's sides.
func (g *group) blame(w *watcher, sub topology.NodeID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if why, ok := g.down[groupPublisher]; ok {
		w.down[sample.Publisher] = why
	}
	if why, ok := g.down[sub]; ok && sub != "" {
		w.down[sample.Subscriber] = why
	}
}

// asPair names a session failure of the pair's subscriber node by the
// pair's side.
func asPair(err error, sub topology.NodeID) error {
	var se *sample.SideError
	if errors.As(err, &se) && sub != "" && se.Side == string(sub) {
		return &sample.SideError{Side: sample.Subscriber, Err: se.Err}
	}
	return err
}

// close closes the sampler's and the pairs' kept sessions.
func (g *group) close() {
	g.ss.Close()
	for _, w := range g.pairs {
		w.closeKept()
	}
}

func containsNode(ns []topology.Node, id topology.NodeID) bool {
	for _, n := range ns {
		if n.ID == id {
			return true
		}
	}
	return false
}
