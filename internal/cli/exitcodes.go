package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// ExitCodes is the one table of what lagscope's exit codes mean, for every
// command: --help prints it, README copies it, a test runs each case.
var ExitCodes = []struct {
	Code    int
	Meaning string
}{
	{ExitOK, "success; diagnose: every path caught up (or copying its tables' initial data); check: no errors or warnings"},
	{ExitFinding, "diagnose: a path is not caught up (a bottleneck or a stop named, a consumer that confirms late, or lag the window could not explain); check: errors or warnings"},
	{ExitUsage, "usage: an unknown command, flag or argument, bad input; or a server that cannot be reached, refuses the session or a read the role needs, or is not what was asked for (no such slot, a standby)"},
	{ExitFailure, "the command ran and failed (a read broke off, a lab run failed, the exporter could not listen)"},
	{ExitInterrupted, "interrupted (Ctrl-C, SIGTERM)"},
}

// exitCodesHelp is ExitCodes as --help prints it.
func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes (every command):\n")
	for _, e := range ExitCodes {
		fmt.Fprintf(&b, "  %3d  %s\n", e.Code, e.Meaning)
	}
	return strings.TrimRight(b.String(), "\n")
}

// runError is the exit code of an error that diagnose.Run or audit.Collect
// returned. They fail only before the window (a read that breaks off
// inside it becomes a gap the report names): the servers could not be
// reached (pg.IsConnectFailure), refused what lagscope reads (a privilege,
// a timeout), or are not what was asked for (no slot, a standby). All of
// that is 2: what to change is in the command line or the role.
func runError(err error) error {
	return &ExitError{Code: ExitUsage, Err: err}
}

// strictArgs makes every command of the tree refuse what it does not
// take with exit code 2: a stray argument, an unknown subcommand (cobra
// would exit 3, or show the parent's help and exit 0), an unknown help
// topic.
func strictArgs(c *cobra.Command) {
	for _, sub := range c.Commands() {
		strictArgs(sub)
	}
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return Usagef("unknown command %q for %q (see '%s --help')", args[0], cmd.CommandPath(), cmd.CommandPath())
			}
			return cmd.Help()
		}
		return
	}
	validate := c.Args
	if validate == nil {
		validate = cobra.ArbitraryArgs
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := validate(cmd, args); err != nil {
			return Usagef("%v (see '%s --help')", err, cmd.CommandPath())
		}
		return nil
	}
}

// helpCommand is 'lagscope help [command]', which refuses an unknown topic.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return Usagef("no help topic %q: see 'lagscope --help' for the commands", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}
