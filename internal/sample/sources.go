package sample

import (
	"context"
	"time"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/topology"
)

// positionsReader reads what a node of one role answers at every tick in
// one round trip (its WAL position and replication state), into r; it
// returns the replication backends it saw, by pid. A failure fails the
// node's tick: a gap, and a reconnect at the next.
type positionsReader func(ctx context.Context, c *pg.Conn, r *Read) (map[int]procKey, error)

// source is a best-effort reader of one node at a tick: a failure leaves
// what it reads out of the tick and is noted as a ReadError of Name,
// instead of losing the tick.
type source struct {
	// Name is the source's name in ReadError.Source (and the exporter's
	// lagscope_read_errors_total).
	Name string
	// Due says whether the tick at at reads it (nil: every tick); final
	// is the window's last tick.
	Due func(s *session, at time.Time, final bool) bool
	// Read reads it into r; backends are what the positions saw.
	Read func(ctx context.Context, s *session, r *Read, backends map[int]procKey) error
}

// roleSources are the readers that run for a node of each role, at each
// tick: its positions, then its best-effort sources in order, then those
// read only where the node's /proc is (this host). Every node besides has
// its processes and host CPU read from /proc, or CPU bursts where /proc
// cannot see it (session.read).
var roleSources = []struct {
	Role      topology.Role
	Positions positionsReader
	Sources   []source
	OnHost    []source
}{
	{Role: topology.Publisher, Positions: readPublisher,
		// Beside /proc, walsender or not: a disabled subscription's slot,
		// the one that fills the disk, has none.
		Sources: []source{{Name: SourceActive, Read: readActiveSource}},
		OnHost:  []source{{Name: SourceWALDisk, Read: readWALDiskSource}}},
	{Role: topology.Subscriber, Positions: readSubscriber,
		Sources: []source{
			{Name: SourceBlockers, Read: readBlockersSource},
			{Name: SourceCopyProgress, Read: readCopyProgressSource},
			{Name: SourceApplyWork, Due: (*session).applyWorkDue, Read: readApplyWorkSource},
			{Name: SourceActive, Read: readActiveSource},
		}},
	// A primary reads its physical walsenders and slots, and where its
	// /proc is the space left for the WAL a slot retains.
	{Role: topology.Primary, Positions: readPrimary,
		Sources: []source{{Name: SourceActive, Read: readActiveSource}},
		OnHost:  []source{{Name: SourceWALDisk, Read: readWALDiskSource}}},
	// A standby reads its receive and replay positions, then what replay
	// reads (prefetch 15+, pg_stat_io 16+), who holds it back when it
	// waits on a recovery conflict, its own walsenders (a cascade's, a
	// logical slot's on the standby) and its queries running.
	{Role: topology.Standby, Positions: againOnRecoveryConflict(readStandby),
		Sources: []source{
			{Name: SourceSenders, Read: readStandbySendersSource},
			{Name: SourcePrefetch, Read: readPrefetchSource},
			{Name: SourceStartupIO, Read: readStartupIOSource},
			{Name: SourceHolders, Read: readHoldersSource},
			{Name: SourceActive, Read: readActiveSource},
		}},
}

// againOnRecoveryConflict reads a standby's positions again, at once,
// when recovery cancels the read (pg.AgainOnRecoveryConflict): a miss a
// tick is a gap (15.18, replay-cpu's 2 GB backlog replayed at 150-220
// MB/s: every tick of a 4 s window was lost before this).
func againOnRecoveryConflict(read positionsReader) positionsReader {
	return func(ctx context.Context, c *pg.Conn, r *Read) (map[int]procKey, error) {
		var keys map[int]procKey
		err := pg.AgainOnRecoveryConflict(ctx, c, func() (err error) {
			keys, err = read(ctx, c, r)
			return err
		})
		return keys, err
	}
}

// sourcesOf returns the readers of role (false when no entry lists it:
// lagscope cannot sample such a node yet).
func sourcesOf(role topology.Role) (positionsReader, []source, []source, bool) {
	for _, rs := range roleSources {
		if rs.Role == role {
			return rs.Positions, rs.Sources, rs.OnHost, true
		}
	}
	return nil, nil, nil, false
}

// readBlockersSource reads the sessions that block the lock waiters among
// backends (the statement runs only when one waits).
func readBlockersSource(ctx context.Context, s *session, r *Read, backends map[int]procKey) error {
	var err error
	r.Blockers, err = bestEffort(ctx, func(ctx context.Context) ([]Blocker, error) {
		return readBlockers(ctx, s.conn, lockWaiters(backends))
	})
	return err
}

// readCopyProgressSource reads the tablesync workers' COPY progress.
func readCopyProgressSource(ctx context.Context, s *session, r *Read, backends map[int]procKey) error {
	var err error
	r.Copies, err = bestEffort(ctx, func(ctx context.Context) ([]CopyProgress, error) {
		return readCopyProgress(ctx, s.conn, syncPIDs(backends))
	})
	return err
}

// readApplyWorkSource reads what the apply workers have done.
func readApplyWorkSource(ctx context.Context, s *session, r *Read, backends map[int]procKey) error {
	var err error
	r.Applied, err = bestEffort(ctx, func(ctx context.Context) (*ApplyWork, error) {
		return readApplyWork(ctx, s.conn, applyPIDs(backends))
	})
	return err
}

// readWALDiskSource reads the space of the file system holding the node's
// pg_wal (its directory asked of the server once).
func readWALDiskSource(ctx context.Context, s *session, r *Read, _ map[int]procKey) error {
	if s.walDir == "" {
		dir, err := bestEffort(ctx, func(ctx context.Context) (string, error) { return walDir(ctx, s.conn) })
		if err != nil {
			return err
		}
		s.walDir = dir
	}
	var err error
	r.WALDisk, err = readWALDisk(s.walDir)
	return err
}
