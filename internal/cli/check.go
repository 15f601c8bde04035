package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/render"
	"github.com/lagscope/lagscope/internal/safefile"
	"github.com/spf13/cobra"
)

type checkOptions struct {
	audit.Options
	format        string
	json          bool
	input         string // re-render a saved report
	snapshots     string // run the checks on saved snapshots
	saveSnapshots string
}

// Validate checks flags and picks the output format.
func (o *checkOptions) Validate() error {
	var err error
	if o.format, err = outputFormat(o.format, o.json); err != nil {
		return err
	}
	offline := o.input != "" || o.snapshots != ""
	if o.input != "" && o.snapshots != "" {
		return Usagef("--input and --from-snapshots exclude each other: --input re-renders a report, --from-snapshots re-runs the checks")
	}
	if offline && (o.Publisher != "" || o.Subscriber != "" || o.Standby != "" || o.Primary != "") {
		return Usagef("--input and --from-snapshots read a file: do not give --publisher, --subscriber, --standby or --primary with them")
	}
	if offline {
		return nil
	}
	if o.Publisher == "" && o.Subscriber == "" && o.Standby == "" {
		// libpq convention: PG* variables alone describe the publisher.
		if os.Getenv("PGHOST") != "" || os.Getenv("PGSERVICE") != "" || os.Getenv("PGDATABASE") != "" {
			o.Publisher = " "
		}
	}
	if err := o.Options.Validate(); err != nil {
		return Usage(err)
	}
	return nil
}

func newCheckCmd() *cobra.Command {
	o := &checkOptions{}
	c := &cobra.Command{
		Use:   "check",
		Short: "Find replication lag designed into the configuration and schema, with the fix for each",
		Long: `Reads the publisher's and the subscriber's catalogs once and reports what makes
logical replication lag before any load arrives: REPLICA IDENTITY FULL without
an index the subscriber's apply worker can use (a sequential scan per changed
row), extra subscriber indexes, triggers firing for replicated rows, slots
nobody reads, spill to disk, missing replica identities, columns that differ
between the sides, too few walsenders, slots or workers - each with the
objects, the numbers, why it matters and the SQL that fixes it. One page per
check in docs/checks/.

It only reads catalogs and statistics (read-only sessions, application_name=
lagscope). A role with pg_monitor is enough; a part of the catalogs the role
may not read makes the checks that need it "not checked", not the run fail.
Give both sides to check how they match; either alone runs its own checks.
Give --standby (a physical standby) to check what it designs into its lag:
replay that a standby query can stall without limit, hot_standby_feedback,
recovery_min_apply_delay, recovery_prefetch, wal_receiver_status_interval;
with --primary (its primary) also the xmin its feedback holds there, the
primary's wal_compression, a physical slot without max_slot_wal_keep_size,
and synchronous_standby_names coupling the primary's commits to it. With
--publisher, --standby is a physical standby of the publisher, and the check
also says whether the publisher's logical slots survive a failover to it: its
slot synchronisation settings and its synced copies of the failover slots
(PostgreSQL 17+).

` + exitCodesHelp(),
		Example: `  lagscope check --publisher 'host=pub dbname=app user=monitor' --subscriber 'host=sub dbname=app user=monitor'
  lagscope check --publisher postgres://monitor@pub/app --format markdown
  lagscope check --publisher 'host=pub dbname=app user=monitor' --standby 'host=pub-replica dbname=app user=monitor'
  lagscope check --standby 'host=replica dbname=app user=monitor' --primary 'host=primary dbname=app user=monitor'
  lagscope check --publisher ... --subscriber ... --json > check.json && lagscope check --input check.json
  lagscope check --publisher ... --subscriber ... --save-snapshots snap.json; lagscope check --from-snapshots snap.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			rep, err := o.report(cmd)
			if err != nil {
				return err
			}
			if err := audit.Render(cmd.OutOrStdout(), rep, o.format); err != nil {
				return err
			}
			if rep.Problems() {
				return &ExitError{Code: ExitFinding, Err: errSilent}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.Publisher, "publisher", "", "publisher connection string (keyword/value or URI)")
	f.StringVar(&o.Subscriber, "subscriber", "", "subscriber connection string (the database with the subscriptions)")
	f.StringVar(&o.Standby, "standby", "", "a physical standby: its replay, feedback and delay settings (with --publisher also failover-safety, 17+)")
	f.StringVar(&o.Primary, "primary", "", "the --standby's primary: the xmin its feedback holds, its slot, wal_compression, synchronous commit")
	f.StringVar(&o.format, "format", "", "output format: text (default), markdown, json or html (one self-contained page)")
	f.BoolVar(&o.json, "json", false, "same as --format json")
	f.StringVar(&o.input, "input", "", "re-render a report saved with --json instead of connecting")
	f.StringVar(&o.snapshots, "from-snapshots", "", "run the checks on snapshots saved with --save-snapshots instead of connecting")
	f.StringVar(&o.saveSnapshots, "save-snapshots", "", "also write what was read from the servers (JSON) to this file")
	return c
}

// report produces the report: from a saved report, from saved snapshots, or
// from the servers.
func (o *checkOptions) report(cmd *cobra.Command) (audit.Report, error) {
	if o.input != "" {
		f, err := os.Open(o.input)
		if err != nil {
			return audit.Report{}, Usagef("open %s: %v", o.input, err)
		}
		defer f.Close()
		rep, err := audit.ReadReport(f)
		if err != nil {
			return rep, Usagef("--input %s: %v", o.input, err)
		}
		rep.RebuiltFrom = &render.Source{File: o.input, RecordedAt: rep.Taken}
		return rep, nil
	}
	var snaps audit.Snapshots
	if o.snapshots != "" {
		f, err := os.Open(o.snapshots)
		if err != nil {
			return audit.Report{}, Usagef("open %s: %v", o.snapshots, err)
		}
		defer f.Close()
		if snaps, err = audit.ReadSnapshots(f); err != nil {
			return audit.Report{}, Usagef("--from-snapshots %s: %v", o.snapshots, err)
		}
	} else {
		var err error
		snaps, err = audit.Collect(cmd.Context(), o.Options)
		if err != nil {
			if cmd.Context().Err() != nil {
				return audit.Report{}, &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted while reading the catalogs")}
			}
			return audit.Report{}, runError(err)
		}
	}
	if o.saveSnapshots != "" {
		b, err := json.MarshalIndent(snaps, "", " ")
		if err != nil {
			return audit.Report{}, err
		}
		if err := safefile.WriteFile(o.saveSnapshots, b); err != nil {
			return audit.Report{}, fmt.Errorf("save snapshots: %w", err)
		}
	}
	rep := audit.NewReport(snaps, audit.Run(snaps, audit.All))
	if o.snapshots != "" {
		rep.RebuiltFrom = &render.Source{File: o.snapshots, RecordedAt: rep.Taken}
	}
	return rep, nil
}
