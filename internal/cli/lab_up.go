//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/lab/cluster"
	"github.com/lagscope/lagscope/internal/quote"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/spf13/cobra"
)

func newLabUpCmd() *cobra.Command {
	o := &labFlags{}
	var duration time.Duration
	c := &cobra.Command{
		Use:   "up SCENARIO",
		Short: "Keep a pair in a scenario's state until Ctrl-C, and print its connection strings",
		Long: `Builds a pair, drives it into the scenario's state and keeps it there in the
foreground, so you can point lagscope diagnose, psql or other tools at it.
Ctrl-C (or 'lagscope lab down' from another terminal) removes it.

Scenarios:
` + scenarioHelp(),
		Example: `  lagscope lab up walsender-starved
  lagscope lab up network --rate 4MB/s --json
  lagscope lab up caught-up --tls    # connection strings with sslmode=verify-full`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, ro, err := o.resolve(args[0])
			if err != nil {
				return err
			}
			ro.Duration = duration
			ro.Log = cmd.ErrOrStderr()
			p, load, err := lab.Up(cmd.Context(), s.Recipe, ro)
			if err != nil {
				if cmd.Context().Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted; the lab's clusters were removed")}
				}
				return err
			}
			defer p.Close()
			defer load.Stop()
			pub, sub := p.ConnString(p.Pub), p.ConnString(p.Sub)
			if o.json {
				b, _ := json.Marshal(map[string]string{sample.Publisher: pub, sample.Subscriber: sub})
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "publisher:  %s\nsubscriber: %s\n", pub, sub)
				fmt.Fprintf(cmd.OutOrStdout(), "try: %s\n", quote.Command("lagscope", "diagnose", "--publisher", pub, "--subscriber", sub).Text)
				fmt.Fprintln(cmd.ErrOrStderr(), "lab: holding; press Ctrl-C to remove the pair")
			}
			<-cmd.Context().Done()
			fmt.Fprintln(cmd.ErrOrStderr(), "lab: removing the pair")
			return nil
		},
	}
	o.bind(c)
	c.Flags().DurationVar(&duration, "duration", 30*time.Second, "sizes the backlog as 'lab run' would for this window")
	return c
}

func newLabCleanCmd() *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:     "clean",
		Aliases: []string{"down"},
		Short:   "Remove leftover lab clusters (lab down: also stop running 'lab up' pairs)",
		Long: `Finds lab directories (those with a lagscope-lab.json marker under
$LAGSCOPE_LAB_DIR or the temporary directory), stops their servers and removes
them. Labs whose lagscope process still runs are left alone unless --force is
given; 'lab down' asks such processes to stop (SIGTERM) first, and they
remove their own pairs. CPU-limit cgroups of labs that are gone
(/sys/fs/cgroup[/cpu]/lagscope-lab-*) go too. Nothing else is touched.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.CalledAs() == "down" {
				stopOwners(cmd)
			}
			removed, err := cluster.Clean("", force)
			for _, lo := range removed {
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s (%s, %d server(s) stopped)\n", lo.Dir, lo.Marker.Purpose, len(lo.Servers))
			}
			if err != nil {
				return err
			}
			// After the directories: a cgroup goes with its lab.
			cgroups := lab.CleanCPULimits("")
			for _, d := range cgroups {
				fmt.Fprintf(cmd.OutOrStdout(), "removed cgroup %s (a CPU limit of a lab that is gone)\n", d)
			}
			if len(removed) == 0 && len(cgroups) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no leftover lab clusters")
			}
			return nil
		},
	}
	c.Flags().BoolVar(&force, "force", false, "also remove labs whose lagscope process still runs")
	return c
}

// stopOwners sends SIGTERM to the lagscope processes that own running labs and
// waits up to 60 s for their labs to disappear.
func stopOwners(cmd *cobra.Command) {
	los, err := cluster.FindLeftovers("")
	if err != nil {
		return
	}
	for _, lo := range los {
		// Only pairs held by 'lab up': a running 'lab run' or a test owns its lab.
		if !lo.Alive || !strings.HasPrefix(lo.Marker.Purpose, "lab up ") {
			continue
		}
		fmt.Fprintf(cmd.OutOrStdout(), "stopping lagscope pid %d (%s)\n", lo.Marker.PID, lo.Marker.Purpose)
		_ = syscall.Kill(lo.Marker.PID, syscall.SIGTERM)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		los, _ = cluster.FindLeftovers("")
		alive := false
		for _, lo := range los {
			alive = alive || (lo.Alive && strings.HasPrefix(lo.Marker.Purpose, "lab up "))
		}
		if !alive {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func newLabListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List lab directories and whether their owner and servers still run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			los, err := cluster.FindLeftovers("")
			if err != nil {
				return err
			}
			if len(los) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no lab directories")
			}
			for _, lo := range los {
				state := "owner gone (lagscope lab clean removes it)"
				if lo.Alive {
					state = fmt.Sprintf("owner pid %d running", lo.Marker.PID)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s  %s  %d server(s)  %s\n", lo.Dir, lo.Marker.Purpose, len(lo.Servers), state)
			}
			return nil
		},
	}
}
