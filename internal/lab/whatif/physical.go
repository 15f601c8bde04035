package whatif

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lsn"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sleep"
)

// A physical change ends a hold on a standby's replay. Its state is the
// scenario's backlog with replay paused; during the first diagnose window
// replay runs for a stretch (Unheld) and is then held again, so that the
// window shows replay's rate when not held, which the prediction rests on
// (model.ReplayCapacity: a window held throughout gives no figure). The
// change then ends the hold and the catch-up to the primary's position
// of that moment is timed: its rate is the measured drain.

// Unheld is how long replay runs in the first window before the hold
// again: long enough for a rate (30 ticks of 100 ms), short enough that
// replay-cpu's backlog (600-800 MB, replayed at 48-141 MB/s here) outlasts
// it.
const Unheld = 3 * time.Second

// minCatchUpS is the shortest catch-up, at the predicted rate, a run
// measures: 10 reads of the replay position.
const minCatchUpS = 1.0

// PhysicalChanges are the changes the lab makes on a physical standby.
var PhysicalChanges = []Change{
	{Name: string(model.KeyResumeReplay), Summary: "pg_wal_replay_resume() on the standby, paused with replay-cpu's backlog (replay runs 3 s of the first window, then is paused again)",
		Scenarios: []lab.ScenarioName{"replay-cpu"}, Physical: true, Without: []string{lab.ReleaseReplay.Name},
		During: func(ctx context.Context, p *lab.Pair) error {
			return resumeThenHold(ctx, p, "SELECT pg_wal_replay_pause()")
		},
		Apply: func(ctx context.Context, p *lab.Pair, _ *lab.Load) error {
			return standbyExec(ctx, p, "SELECT pg_wal_replay_resume()")
		}},
	// The same backlog held by recovery_min_apply_delay: an hour holds
	// every commit of a backlog a minute old.
	{Name: string(model.KeyRemoveApplyDelay), Summary: "recovery_min_apply_delay set to 0 on the standby, delayed by 1h with replay-cpu's backlog (replay runs 3 s of the first window, then the delay is set)",
		Scenarios: []lab.ScenarioName{"replay-cpu"}, Physical: true, Without: []string{lab.ReleaseReplay.Name},
		During: func(ctx context.Context, p *lab.Pair) error {
			return resumeThenHold(ctx, p, "ALTER SYSTEM SET recovery_min_apply_delay = '1h'", "SELECT pg_reload_conf()")
		},
		Apply: func(ctx context.Context, p *lab.Pair, _ *lab.Load) error {
			return standbyExec(ctx, p, "ALTER SYSTEM SET recovery_min_apply_delay = 0", "SELECT pg_reload_conf()")
		}},
	physCancelHolder,
	physLinkTwice,
	physWALCompression,
}

// The same backlog held by a standby query: replay runs 3 s and is paused;
// the lab's snapshot holder (lab-snapshot-holder) reads hot in a REPEATABLE
// READ transaction at that position, and replay resumes into the backlog's
// cleanup records (the 16-client load's pruning), which remove row
// versions the snapshot still sees: replay waits for the holder without
// limit (max_standby_streaming_delay = -1, set first). The change ends the
// holder's session, as a cancelled or finished query would.
var physCancelHolder = Change{Name: string(model.KeyCancelConflictHolder), Summary: "the conflicting standby query ended (the lab's snapshot holder closed) on replay-cpu's backlog, with max_standby_streaming_delay = -1 (replay runs 3 s of the first window, then waits on the holder's snapshot)",
	Scenarios: []lab.ScenarioName{"replay-cpu"}, Physical: true, Without: []string{lab.ReleaseReplay.Name},
	During: conflictHold,
	Apply: func(_ context.Context, p *lab.Pair, _ *lab.Load) error {
		sb := p.PhysicalStandby()
		if sb == nil || sb.Holder == nil {
			return errors.New("the standby holds no lab snapshot")
		}
		sb.ReleaseSnapshot()
		return nil
	}}

// conflictHold holds replay on a standby query's snapshot for the rest of
// the first window after 3 s of replay (physCancelHolder).
func conflictHold(ctx context.Context, p *lab.Pair) error {
	if err := standbyExec(ctx, p, "ALTER SYSTEM SET max_standby_streaming_delay = -1", "SELECT pg_reload_conf()"); err != nil {
		return err
	}
	if err := resumeThenHold(ctx, p, "SELECT pg_wal_replay_pause()"); err != nil {
		return err
	}
	sb := p.PhysicalStandby()
	if sb == nil {
		return errors.New("the pair has no standby")
	}
	if err := sb.HoldSnapshot(ctx); err != nil {
		return err
	}
	return standbyExec(ctx, p, "SELECT pg_wal_replay_resume()")
}

// A link-bound standby's link doubled: standby-link streams through a
// 1 MB/s proxy while the load writes several times that; the window shows
// the link carrying what the standby receives, and the catch-up to the
// primary's position at the change is timed at the new rate (replay keeps
// up with what arrives, so its rate is the link's).
var physLinkTwice = Change{Name: string(model.KeyLinkTwice), Summary: "the standby's link rate doubled (its proxy's rate, at once) in standby-link, the load still running",
	Scenarios: []lab.ScenarioName{"standby-link"}, Physical: true,
	Apply: func(_ context.Context, p *lab.Pair, _ *lab.Load) error {
		sb := p.PhysicalStandby()
		if sb == nil || sb.Link() == nil || sb.Opts.LinkRate <= 0 {
			return errors.New("the standby has no rate-limited link: use standby-link")
		}
		sb.Link().SetRate(2 * sb.Opts.LinkRate)
		return nil
	}}

// wal_compression on a link-bound standby's primary: standby-link's WAL
// (the lab runs full_page_writes = off) carries no full-page images, the
// only part compression shrinks, so the report predicts 1x; the change
// turns it on (pglz: 'on' on every version) and times the catch-up as
// link=2x does.
var physWALCompression = Change{Name: string(model.KeyWALCompression), Summary: "wal_compression = on on the publisher (a reload) in standby-link, the load still running",
	Scenarios: []lab.ScenarioName{"standby-link"}, Physical: true,
	Apply: func(ctx context.Context, p *lab.Pair, _ *lab.Load) error {
		return lab.Exec(ctx, p.Pub.ConnString(lab.Database), "ALTER SYSTEM SET wal_compression = on", "SELECT pg_reload_conf()")
	}}

// standbyExec runs statements on the pair's physical standby, again when
// a recovery conflict cancels them (standbyRetry).
func standbyExec(ctx context.Context, p *lab.Pair, stmts ...string) error {
	sb := p.PhysicalStandby()
	if sb == nil {
		return errors.New("the pair has no physical standby: use a physical scenario")
	}
	err := standbyRetry(ctx, func() error { return lab.Exec(ctx, sb.ConnString(), stmts...) })
	if err != nil {
		return fmt.Errorf("standby: %w", err)
	}
	return nil
}

// standbyRetry runs f again, every 20 ms for up to 2 s, while a recovery
// conflict cancels it (SQLSTATE 40001): a standby replaying a backlog
// whose WAL arrived more than max_standby_streaming_delay ago cancels any
// query whose snapshot conflicts at once, even a read of its positions.
func standbyRetry(ctx context.Context, f func() error) error {
	var err error
	for range 100 {
		if err = f(); err == nil || !recoveryCancelled(err) {
			return err
		}
		if e := sleep.For(ctx, 20*time.Millisecond); e != nil {
			return e
		}
	}
	return err
}

// recoveryCancelled says err is a statement or connection cancelled by a
// recovery conflict.
func recoveryCancelled(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40001" || err != nil && strings.Contains(err.Error(), "SQLSTATE 40001")
}

// resumeThenHold resumes the standby's paused replay a second into the
// window, lets it run Unheld, then holds it again with the statements
// hold.
func resumeThenHold(ctx context.Context, p *lab.Pair, hold ...string) error {
	if err := sleep.For(ctx, time.Second); err != nil {
		return err
	}
	if err := standbyExec(ctx, p, "SELECT pg_wal_replay_resume()"); err != nil {
		return err
	}
	if err := sleep.For(ctx, Unheld); err != nil {
		return err
	}
	return standbyExec(ctx, p, hold...)
}

// positionsSQL are the primary's WAL position and the standby's replay
// position.
var (
	primaryLSNSQL = "SELECT " + lsn.SQL("pg_current_wal_lsn()")
	replayLSNSQL  = "SELECT " + lsn.SQL("pg_last_wal_replay_lsn()")
)

// replayLSN reads the standby's replay position (standbyRetry).
func replayLSN(ctx context.Context, sb *lab.Standby) (lsn.LSN, error) {
	var at lsn.LSN
	err := standbyRetry(ctx, func() error {
		var err error
		at, err = lab.Query[lsn.LSN](ctx, sb.ConnString(), replayLSNSQL)
		return err
	})
	return at, err
}

// CatchUp is a timed catch-up after a physical change.
type CatchUp struct {
	// Backlog is the WAL from the standby's replay position to the
	// primary's position when the change was made, bytes; Seconds the time
	// replay took to reach it (Done), or the limit and what it replayed
	// by then.
	Backlog int64
	Seconds float64
	Done    bool
}

// Rate is the catch-up's replay rate, bytes/s.
func (c CatchUp) Rate() float64 {
	if c.Seconds <= 0 {
		return 0
	}
	return float64(c.Backlog) / c.Seconds
}

// TimeCatchUp makes the change and times replay to the primary's
// position of that moment, reading the standby's replay position every
// 100 ms for at most limit.
func TimeCatchUp(ctx context.Context, p *lab.Pair, ch Change, load *lab.Load, limit time.Duration) (CatchUp, error) {
	sb := p.PhysicalStandby()
	if sb == nil {
		return CatchUp{}, errors.New("the pair has no physical standby: use a physical scenario")
	}
	target, err := lab.Query[lsn.LSN](ctx, p.Pub.ConnString(lab.Database), primaryLSNSQL)
	if err != nil {
		return CatchUp{}, fmt.Errorf("publisher: %w", err)
	}
	from, err := replayLSN(ctx, sb)
	if err != nil {
		return CatchUp{}, fmt.Errorf("standby: %w", err)
	}
	c := CatchUp{Backlog: max(target.Sub(from), 0)}
	start := time.Now()
	if err := ch.Apply(ctx, p, load); err != nil {
		return CatchUp{}, fmt.Errorf("%s: %w", ch.Name, err)
	}
	for time.Since(start) < limit {
		at, err := replayLSN(ctx, sb)
		if err != nil {
			return CatchUp{}, fmt.Errorf("standby: %w", err)
		}
		if at >= target {
			c.Seconds, c.Done = time.Since(start).Seconds(), true
			return c, nil
		}
		if err := sleep.For(ctx, 100*time.Millisecond); err != nil {
			return CatchUp{}, err
		}
	}
	at, err := replayLSN(ctx, sb)
	if err != nil {
		return CatchUp{}, fmt.Errorf("standby: %w", err)
	}
	c.Backlog, c.Seconds = max(at.Sub(from), 0), time.Since(start).Seconds()
	return c, nil
}

// PhysicalRun diagnoses the standby's state for a window during which
// the change's During runs, takes the report's prediction for the change,
// makes it and times the catch-up (at most limit), then diagnoses again
// (which verdict holds after).
func PhysicalRun(ctx context.Context, p *lab.Pair, load *lab.Load, ch Change, scenario string, limit time.Duration,
	diag func(context.Context) (report.Report, error), log io.Writer) (model.Check, error) {
	during := make(chan error, 1)
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		if ch.During == nil {
			during <- nil
			return
		}
		during <- ch.During(dctx, p)
	}()
	before, err := diag(ctx)
	if derr := <-during; err == nil && derr != nil {
		err = fmt.Errorf("during the window: %w", derr)
	}
	if err != nil {
		return model.Check{}, err
	}
	if len(before.Physical) == 0 {
		return model.Check{}, errors.New("diagnose found no physical path")
	}
	p1 := before.Physical[0]
	i := slices.IndexFunc(p1.WhatIf, func(pr model.Prediction) bool { return pr.Change == ch.Name })
	if i < 0 {
		return model.Check{}, fmt.Errorf("the report (verdict %s) has no prediction for %s", p1.Name, ch.Name)
	}
	pred := p1.WhatIf[i]
	if pred.Drain <= 0 {
		return model.Check{}, fmt.Errorf("the report (verdict %s) has no figure for %s: %s", p1.Name, ch.Name, pred.NotPredicted)
	}
	fmt.Fprintf(log, "lab whatif: predicted %s; making the change: %s\n", pred, ch.Summary)
	// The second window is diagnosed while the catch-up is timed, as a
	// logical change's drain is measured while it is diagnosed: the
	// catch-up shares the machine with the sampling as the first window's
	// replay did.
	type diagnosed struct {
		rep report.Report
		err error
	}
	second := make(chan diagnosed, 1)
	go func() {
		r, err := diag(ctx)
		second <- diagnosed{r, err}
	}()
	c, err := TimeCatchUp(ctx, p, ch, load, limit)
	d := <-second
	if err != nil {
		return model.Check{}, err
	}
	fmt.Fprintf(log, "lab whatif: %.1f MB replayed in %.2f s (%.1f MB/s; caught up: %t); predicted %.2f s\n", float64(c.Backlog)/1e6, c.Seconds, c.Rate()/1e6, c.Done, pred.CatchUpS)
	if !c.Done && c.Backlog == 0 {
		return model.Check{}, fmt.Errorf("replay did not move in the %.0f s after the change (predicted: caught up in %.1f s): the change did not release it", c.Seconds, pred.CatchUpS)
	}
	if c.Done && float64(c.Backlog) < pred.Drain*minCatchUpS {
		// Replay drained nearly all of the backlog in its unheld stretch:
		// a catch-up this short is mostly the polling's granularity.
		return model.Check{}, fmt.Errorf("the backlog ran out: %.1f MB were left to replay at the change, under %.0f s at the predicted %.1f MB/s (give a larger backlog: --duration)", float64(c.Backlog)/1e6, minCatchUpS, pred.Drain/1e6)
	}
	if st := p1.Stages; len(st) > 0 {
		for _, x := range st {
			if x.Name == model.StageReplay {
				fmt.Fprintf(log, "lab whatif: the first window's startup process: CPU %.2f, run queue %.2f, busy %.2f, own waits %.2f (%s), waiting for WAL %.2f\n", x.CPU, x.Runq, x.Busy, x.Own, x.OwnTop, x.Starved)
			}
		}
	}
	after := d.rep
	if d.err != nil {
		// Which verdict holds after is a note: the measurement is the
		// timed catch-up.
		fmt.Fprintf(log, "lab whatif: the second window: %v\n", d.err)
	}
	afterName := model.VerdictName("")
	if len(after.Physical) > 0 {
		afterName = after.Physical[0].Name
	}
	version := ""
	if before.Standby != nil {
		version = before.Standby.Version
	}
	// The catch-up is timed to its end: its rate is no lower bound.
	chk := model.NewCheck(scenario, version, p1.Name, afterName, p1.ReplayedMBps*1e6, pred, c.Rate(), false)
	chk.DrainedS = c.Seconds
	chk.StagesBefore = model.Utilisations(p1.Stages)
	if len(after.Physical) > 0 {
		chk.StagesAfter = model.Utilisations(after.Physical[0].Stages)
	}
	return chk, nil
}
