package reproduce

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/proc"
)

// replaySenders are the max_wal_senders settings compared, lowest first: the
// seed's 100, 200 and 300, and 10 (its gprof baseline) as the reference.
var replaySenders = []int{10, 100, 200, 300}

// replayTxns is how many transactions carry the load; each commit waits until
// the standby has replayed it (synchronous_commit = remote_apply).
const replayTxns = 4

// replayRows is the load: one single-row heap insert, one small WAL record,
// per row (the seed's gprof runs replayed 4.0 million records).
func replayRows(quick bool) int {
	if quick {
		return 200_000
	}
	return 2_000_000
}

// replayRun is one load's measurements.
type replayRun struct {
	Senders int     // max_wal_senders on both the primary and the standby
	Millis  float64 // wall time of the load, synchronous commit waits included, ms
	CPU     float64 // the standby's startup process CPU (user+system) over the load, s
}

// replaySeed is what the seed publishes for one max_wal_senders setting.
type replaySeed struct {
	time, cpu string  // row figures, "" when the seed has none
	ratio     float64 // regressed/unregressed time to replicate (0 = none)
}

var replaySeeds = map[int]replaySeed{
	10:  {cpu: "2.46 s before / 3.11 s after the regression (gprof total)"},
	100: {time: "13394 ms before / 14141 ms after the regression", cpu: "2.91 s before / 6.62 s after the regression (gprof total)", ratio: 14141.2615 / 13394.4013},
	200: {time: "13281 ms before / 14597 ms after the regression", ratio: 14597.1173 / 13280.8507},
	300: {time: "13535 ms before / 16736 ms after the regression", ratio: 16735.7379 / 13535.0232},
}

// replayCPURatioSeed is the regressed startup process's gprof total at 100 vs
// 10 senders (6.62 s / 3.11 s).
const replayCPURatioSeed = 6.62 / 3.11

const replayTitle = "Synchronous standby: time to replicate a fixed load vs max_wal_senders"

// runReplay times a fixed load on a primary whose synchronous standby must
// replay each commit before it returns, for each max_wal_senders setting, in
// rounds (10, 100, 200, 300, then again) so that drift spreads evenly.
func runReplay(ctx context.Context, o Options) (*Table, error) {
	owner, err := cluster.DefaultOwner()
	if err != nil {
		return nil, err
	}
	l, err := cluster.NewLab("", "lab reproduce replay", owner)
	if err != nil {
		return nil, err
	}
	defer l.Close()

	first := replaySenders[0]
	primary, err := l.Create(ctx, cluster.Options{Name: "primary", Bin: o.Bin, CPUs: o.PubCPUs, Settings: map[string]string{
		"max_wal_senders":           strconv.Itoa(first),
		"synchronous_commit":        "remote_apply",
		"synchronous_standby_names": "'standby'",
	}})
	if err != nil {
		return nil, err
	}
	if err := primary.Start(ctx); err != nil {
		return nil, err
	}
	standby, err := l.Standby(ctx, primary, cluster.Options{Name: "standby", Bin: o.Bin, CPUs: o.SubCPUs, Settings: map[string]string{
		"max_wal_senders": strconv.Itoa(first),
		// Reconnect quickly after the primary restarts with new settings.
		"wal_retrieve_retry_interval": "500ms",
	}})
	if err != nil {
		return nil, fmt.Errorf("make the standby: %w", err)
	}
	if err := standby.Start(ctx); err != nil {
		return nil, fmt.Errorf("start the standby: %w", err)
	}
	version, err := lab.Query[string](ctx, primary.ConnString("postgres"), "SHOW server_version /* lagscope */")
	if err != nil {
		return nil, fmt.Errorf("read the server version: %w", err)
	}

	fs, err := proc.NewFS("")
	if err != nil {
		return nil, err
	}
	t := &Table{ServerVersion: version}
	rows := replayRows(o.Quick)
	var runs []replayRun
	cur := first
	for i, senders := range replayPlan(o.Runs) {
		if senders != cur {
			if err := setSenders(ctx, primary, standby, cur, senders); err != nil {
				return nil, fmt.Errorf("set max_wal_senders %d: %w", senders, err)
			}
			cur = senders
		}
		// One untimed load after every restart, so that every timed load
		// finds the servers in the same state (caches warm, table and WAL
		// files recycled), whatever the setting and restart order.
		if _, _, err := replayOnce(ctx, primary, standby, fs, senders, rows); err != nil {
			return nil, fmt.Errorf("max_wal_senders %d: warm-up load: %w", senders, err)
		}
		r, failure, err := replayOnce(ctx, primary, standby, fs, senders, rows)
		if err != nil {
			return nil, fmt.Errorf("max_wal_senders %d, run %d: %w", senders, i/len(replaySenders)+1, err)
		}
		if failure != "" {
			t.Failures = append(t.Failures, fmt.Sprintf("max_wal_senders %d, run %d: %s", senders, i/len(replaySenders)+1, failure))
		}
		o.logf("replay: max_wal_senders %d, run %d/%d: %.0f ms, startup process CPU %.2f s",
			senders, i/len(replaySenders)+1, o.Runs, r.Millis, r.CPU)
		runs = append(runs, r)
	}
	t.Sections = []Section{replaySection(runs, rows)}
	t.Caveats = replayCaveats(o, rows)
	return t, nil
}

// replayPlan is the order of the loads: every setting once per round, lowest
// first, runs rounds.
func replayPlan(runs int) []int {
	plan := make([]int, 0, runs*len(replaySenders))
	for r := 0; r < runs; r++ {
		plan = append(plan, replaySenders...)
	}
	return plan
}

// standbyFirst reports whether the standby must be reconfigured before the
// primary when max_wal_senders goes from one setting to another. A hot standby
// needs max_wal_senders at least the primary's (as last announced in the WAL):
// raise it on the standby first, lower it on the primary first.
func standbyFirst(from, to int) bool { return to >= from }

// setSenders restarts both servers with max_wal_senders = to, in the order
// that keeps the standby in hot standby.
func setSenders(ctx context.Context, primary, standby *cluster.Cluster, from, to int) error {
	set := map[string]string{"max_wal_senders": strconv.Itoa(to)}
	if standbyFirst(from, to) {
		if err := standby.Reconfigure(ctx, set); err != nil {
			return fmt.Errorf("restart the standby: %w", err)
		}
		if err := primary.Reconfigure(ctx, set); err != nil {
			return fmt.Errorf("restart the primary: %w", err)
		}
		return nil
	}
	if err := primary.Reconfigure(ctx, set); err != nil {
		return fmt.Errorf("restart the primary: %w", err)
	}
	// The primary logged its new max_wal_senders at start-up; once the standby
	// replayed that it may restart with the lower setting. (A commit under
	// remote_apply does not wait for this: right after start-up the primary
	// commits without waiting until its checkpointer has read
	// synchronous_standby_names.)
	lsn, err := lab.Query[string](ctx, primary.ConnString("postgres"), "SELECT pg_current_wal_insert_lsn()::text /* lagscope */")
	if err != nil {
		return fmt.Errorf("read the primary's WAL position: %w", err)
	}
	q := fmt.Sprintf("SELECT coalesce(pg_last_wal_replay_lsn() >= '%s', false) /* lagscope */", lsn)
	if err := poll(ctx, standby.ConnString("postgres"), q, "the standby to replay the primary's restart (is it connected? see "+standby.Dir+"/server.log)"); err != nil {
		return err
	}
	if err := standby.Reconfigure(ctx, set); err != nil {
		return fmt.Errorf("restart the standby: %w (standby log: %s)", err, problems(standby.Log()))
	}
	return nil
}

// poll runs q, a boolean query, every 100 ms until it is true, for two
// minutes at most; what names what is waited for.
func poll(ctx context.Context, dsn, q, what string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		ok, err := lab.Query[bool](ctx, dsn, q)
		if err == nil && ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = ctx.Err()
			}
			return fmt.Errorf("wait for %s: %w", what, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// problems picks the FATAL, ERROR and PANIC lines of a server log, at most
// the last five.
func problems(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "FATAL") || strings.Contains(l, "ERROR") || strings.Contains(l, "PANIC") || strings.Contains(l, "DETAIL") || strings.Contains(l, "HINT") {
			out = append(out, l)
		}
	}
	if len(out) > 5 {
		out = out[len(out)-5:]
	}
	return strings.Join(out, " | ")
}

// replayOnce recreates the table (not timed), runs the load and compares the
// standby's copy with the primary's. failure is not empty when they differ.
func replayOnce(ctx context.Context, primary, standby *cluster.Cluster, fs proc.FS, senders, rows int) (r replayRun, failure string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	pdsn, sdsn := primary.ConnString("postgres"), standby.ConnString("postgres")
	if err := lab.Exec(ctx, pdsn, "DROP TABLE IF EXISTS replay_load", "CREATE TABLE replay_load (g int)", "CHECKPOINT"); err != nil {
		return r, "", fmt.Errorf("recreate the table (the commit waits for the standby: see %s/server.log): %w", standby.Dir, err)
	}
	pid, err := lab.Query[int](ctx, sdsn, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'startup' /* lagscope */")
	if err != nil {
		return r, "", fmt.Errorf("find the standby's startup process: %w", err)
	}
	// Without a synchronous walsender the commits would not wait for replay.
	if err := poll(ctx, pdsn, "SELECT EXISTS (SELECT FROM pg_stat_replication WHERE application_name = 'standby' AND sync_state = 'sync') /* lagscope */",
		"the standby to be the primary's synchronous standby (see "+standby.Dir+"/server.log)"); err != nil {
		return r, "", err
	}
	conn, err := pgx.Connect(ctx, pdsn+" application_name=lagscope")
	if err != nil {
		return r, "", fmt.Errorf("connect to the primary: %w", err)
	}
	defer conn.Close(context.Background())

	before, err := fs.Process(pid)
	if err != nil {
		return r, "", fmt.Errorf("read the startup process's CPU: %w", err)
	}
	start := time.Now()
	per := rows / replayTxns
	for i := 0; i < replayTxns; i++ {
		lo, hi := i*per+1, (i+1)*per
		if i == replayTxns-1 {
			hi = rows
		}
		if _, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO replay_load SELECT g FROM generate_series(%d, %d) g", lo, hi)); err != nil {
			return r, "", fmt.Errorf("load (each commit waits until the standby replayed it: see %s/server.log): %w", standby.Dir, err)
		}
	}
	elapsed := time.Since(start)
	after, err := fs.Process(pid)
	if err != nil {
		return r, "", fmt.Errorf("read the startup process's CPU after the load (did the standby restart?): %w", err)
	}
	r = replayRun{Senders: senders, Millis: float64(elapsed) / float64(time.Millisecond), CPU: cpuDelta(before, after).Seconds()}

	const check = "SELECT count(*)::text || ' rows, sum ' || coalesce(sum(g), 0)::text FROM replay_load /* lagscope */"
	want, err := lab.Query[string](ctx, pdsn, check)
	if err != nil {
		return r, "", fmt.Errorf("count the primary's rows: %w", err)
	}
	got, err := lab.Query[string](ctx, sdsn, check)
	if err != nil {
		return r, "", fmt.Errorf("count the standby's rows: %w", err)
	}
	if got != want {
		failure = fmt.Sprintf("standby has %s, primary %s after a remote_apply commit", got, want)
	}
	return r, failure, nil
}

// cpuDelta is a process's CPU time between two samples: the scheduler's
// nanosecond count when both have it (the startup process is single-threaded),
// else user+system time in 10 ms ticks.
func cpuDelta(before, after proc.ProcSample) time.Duration {
	if before.HasSchedstat && after.HasSchedstat {
		return after.Running - before.Running
	}
	return after.CPU - before.CPU
}

// replaySection assembles the seed's table from per-run measurements: for each
// setting a time-to-replicate and a startup-CPU row, then each setting's time
// relative to 10 senders beside the seed's regressed/unregressed ratio.
func replaySection(runs []replayRun, rows int) Section {
	s := Section{Title: replayTitle}
	times, cpus := map[int]Row{}, map[int]Row{}
	for _, n := range replaySenders {
		var ms, cpu []float64
		for _, r := range runs {
			if r.Senders == n {
				ms, cpu = append(ms, r.Millis), append(cpu, r.CPU)
			}
		}
		seed := replaySeeds[n]
		times[n] = NewRow(fmt.Sprintf("max_wal_senders %d: time to replicate", n), seed.time, "ms", ms)
		cpus[n] = NewRow(fmt.Sprintf("max_wal_senders %d: startup process CPU", n), seed.cpu, "s", cpu)
		s.Rows = append(s.Rows, times[n], cpus[n])
	}
	base := replaySenders[0]
	for _, n := range replaySenders[1:] {
		if seed := replaySeeds[n]; seed.ratio > 0 {
			s.Ratios = append(s.Ratios, NewRatio(fmt.Sprintf("max_wal_senders %d vs %d: time to replicate", n, base),
				seed.ratio, ratioOf(times[n], times[base]), 0, regressedVerdict(ratioOf(times[n], times[base]))))
		}
	}
	s.Ratios = append(s.Ratios, NewRatio(fmt.Sprintf("max_wal_senders 100 vs %d: startup process CPU", base),
		replayCPURatioSeed, ratioOf(cpus[100], cpus[base]), 0, regressedVerdict(ratioOf(cpus[100], cpus[base]))))
	s.Notes = []string{
		fmt.Sprintf("load: %d rows in %d INSERT ... SELECT transactions on the primary, one small heap-insert WAL record per row; "+
			"synchronous_commit = remote_apply and synchronous_standby_names = 'standby', so the time runs until the standby has replayed the last commit. "+
			"max_wal_senders is set on both servers; the settings alternate in rounds.", rows, replayTxns),
		"The seed's time ratios are after/before commit e101dfac at the same max_wal_senders: that commit made the standby's startup process call " +
			"WalSndWakeup(), which takes a spinlock on every walsender slot in use or not, for every replayed record, so a regressed build " +
			"slows down as max_wal_senders grows; here that shows as time at N senders over time at 10. The regression was fixed before 16.0 " +
			"was released, so released servers should show ratios near 1.0; a ratio well above 1 on a build under test points at the same " +
			"class of regression (per-record replay work that grows with max_wal_senders).",
		"The seed's startup CPU figures are gprof's PerformWalRecovery totals (user time of profiled code); its CPU ratio is the regressed " +
			"build at 100 vs 10 senders (6.62 s / 3.11 s; before the regression 2.91 s / 2.46 s = 1.18). Here CPU is the startup process's time on a CPU from /proc (schedstat, else utime+stime). " +
			"It is the sharper signal: time to replicate grows only once replay, not the primary's inserts, is the bottleneck.",
	}
	return s
}

// regressedVerdict explains why a measured ratio is not checked against the
// seed's (empty when not measured, so that NewRatio says so).
func regressedVerdict(measured float64) string {
	if math.IsNaN(measured) || math.IsInf(measured, 0) {
		return ""
	}
	return "shown, not checked (seed: regressed build)"
}

// replayCaveats lists what this machine cannot reproduce faithfully.
func replayCaveats(o Options, rows int) []string {
	return []string{
		fmt.Sprintf("Primary on CPU(s) %s and standby on CPU(s) %s of a small machine: the primary's backend and walsender, and the standby's walreceiver and startup process, "+
			"share them, so absolute times are not comparable with the seed's; only the ratios between settings carry over.",
			cpuText(o.PubCPUs), cpuText(o.SubCPUs)),
		"Durability off (fsync, full_page_writes): flushes cost nothing here, so replay is a larger share of the time to replicate than on the seed's machine.",
		fmt.Sprintf("The load is %d WAL records, the seed's gprof runs replayed about 4.0 million; its timing runs took about 13.4 s.", rows),
	}
}

// cpuText prints a CPU list, "any" when not pinned.
func cpuText(cpus []int) string {
	if len(cpus) == 0 {
		return "any"
	}
	return proc.FormatCPUList(cpus)
}
