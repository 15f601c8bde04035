package diagnose

import (
	"context"
	"errors"
	"fmt"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/topology"
)

// Physical says whether o asks for a physical standby's diagnosis
// (--primary or --standby).
func (o Options) Physical() bool { return o.Primary != "" || o.Standby != "" }

// validatePhysical checks a physical run's connection strings: --primary
// and/or --standby, never beside --publisher or --subscriber, nor with
// --slot or --subscription (a physical path has neither).
func (o Options) validatePhysical() error {
	switch {
	case o.Publisher != "" || o.Subscriber != "":
		return errors.New("--primary and --standby diagnose a physical standby, --publisher and --subscriber a logical pair: give one pair of flags")
	case o.Slot != "" || o.Subscription != "":
		return errors.New("--slot and --subscription select a logical path: a physical standby's path is named by the standby (--standby), or every standby the primary feeds is listed (--primary alone)")
	}
	for _, c := range []struct{ dsn, role string }{{o.Primary, string(sample.PrimaryNode)}, {o.Standby, string(sample.StandbyNode)}} {
		if c.dsn != "" {
			if err := pg.CheckConnString(c.dsn, c.role); err != nil {
				return err
			}
		}
	}
	return nil
}

// PhysicalNodes are the nodes a physical run samples: the primary and/or
// the standby o names.
func (o Options) PhysicalNodes() []topology.Node {
	var out []topology.Node
	if o.Primary != "" {
		out = append(out, topology.Node{ID: sample.PrimaryNode, Role: topology.Primary})
	}
	if o.Standby != "" {
		out = append(out, topology.Node{ID: sample.StandbyNode, Role: topology.Standby})
	}
	return out
}

// RunPhysical samples a physical standby's path (the primary, the standby,
// or both) through sample.RunNodes and builds its report.
func RunPhysical(ctx context.Context, o Options) (report.Report, *sample.Recording, error) {
	if err := o.Validate(); err != nil {
		return report.Report{}, nil, err
	}
	ss := NewSessions(o.Connector())
	defer ss.Close()
	if err := PhysicalPreflight(ctx, ss.Connect, ss.Keep, o); err != nil {
		return report.Report{}, nil, err
	}
	so := o.SampleOptions(o.Duration)
	so.Release = ss.Keep
	w, err := sample.RunNodes(ctx, ss.Connect, o.PhysicalNodes(), so)
	if err != nil {
		return report.Report{}, nil, err
	}
	rec, err := windowRecording(w)
	if err != nil {
		return report.Report{}, nil, err
	}
	if ctx.Err() != nil && len(rec.Ticks) < 2 {
		return report.Report{}, rec, ctx.Err()
	}
	return BuildPhysical(rec, o.ProbeHz), rec, nil
}

// PhysicalRecording is the window of a physical run as a recording (the
// monitor's steps: see windowRecording).
func PhysicalRecording(w *sample.NodeWindow) (*sample.Recording, error) { return windowRecording(w) }

// windowRecording is the window of a physical run as a recording: its
// nodes are already the primary and standby nodes. A node that could not
// be opened fails it.
func windowRecording(w *sample.NodeWindow) (*sample.Recording, error) {
	for _, n := range []topology.NodeID{sample.PrimaryNode, sample.StandbyNode} {
		if err := w.Failed[n]; err != nil {
			return nil, err
		}
	}
	return &sample.Recording{Version: sample.RecordingVersion, Start: w.Start, End: w.End, Nodes: w.Nodes, Ticks: w.Ticks, Probes: w.Probes, Gaps: w.Gaps}, nil
}

// physicalFacts are what a physical run's preflight reads.
type physicalFacts struct {
	primary, standby                     bool // given
	primaryInRecovery, standbyInRecovery bool
	// senders counts the primary's physical walsenders (those on no
	// logical slot).
	senders int
}

// PhysicalPreflight checks the servers of a physical run: the standby is
// in recovery, the primary is not, and a primary given alone feeds at
// least one standby. A session that answered goes to keep.
func PhysicalPreflight(ctx context.Context, connect sample.Connector, keep func(string, *pg.Conn), o Options) error {
	f := physicalFacts{primary: o.Primary != "", standby: o.Standby != ""}
	if f.primary {
		if err := readSide(ctx, connect, keep, string(sample.PrimaryNode), func(ctx context.Context, c *pg.Conn) error {
			return c.QueryRow(ctx, pg.Marker+`SELECT pg_is_in_recovery(), (SELECT count(*) FROM pg_stat_replication r
				WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots s WHERE s.active_pid = r.pid AND s.slot_type = 'logical'))`).Scan(&f.primaryInRecovery, &f.senders)
		}); err != nil {
			return err
		}
	}
	if f.standby {
		if err := readSide(ctx, connect, keep, string(sample.StandbyNode), func(ctx context.Context, c *pg.Conn) error {
			return pg.AgainOnRecoveryConflict(ctx, c, func() error {
				return c.QueryRow(ctx, pg.Marker+"SELECT pg_is_in_recovery()").Scan(&f.standbyInRecovery)
			})
		}); err != nil {
			return err
		}
	}
	return f.check()
}

// check says what is wrong with the facts, in one line. It is pure.
func (f physicalFacts) check() error {
	switch {
	case f.standby && !f.standbyInRecovery:
		return errors.New("--standby: the server is not in recovery (pg_is_in_recovery() is false): it is a primary, or a promoted standby; point --standby at a standby")
	case f.primary && f.primaryInRecovery:
		return fmt.Errorf("--primary: %w: lagscope reads the primary's WAL position with pg_current_wal_lsn(), which a standby does not have; point --primary at the primary (a cascaded standby's upstream is not diagnosed yet)", ErrInRecovery)
	case f.primary && !f.standby && f.senders == 0:
		return fmt.Errorf("%w: the primary feeds no physical standby now (pg_stat_replication lists no physical walsender): start the standby, or give --standby to see why it does not stream", ErrNothingToDiagnose)
	}
	return nil
}
