package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lagscope/lagscope/internal/buildinfo"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/quote"
)

// Exit codes shared by every command.
const (
	ExitOK          = 0 // success; for diagnose/check: nothing to report
	ExitFinding     = 1 // diagnose named a bottleneck, check found problems
	ExitUsage       = 2 // bad flags, bad input, cannot connect
	ExitFailure     = 3 // the command ran and failed (a lab run broke, ...)
	ExitInterrupted = 130
)

// ExitError carries an explicit exit code with its message.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Usage marks err as a usage or input error (exit code 2).
func Usage(err error) error { return &ExitError{Code: ExitUsage, Err: err} }

// Usagef is Usage(fmt.Errorf(...)).
func Usagef(format string, a ...any) error { return Usage(fmt.Errorf(format, a...)) }

// ExitCode maps an error returned by the command tree to a process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitFailure
}

// Message is the text shown for err, without any password lagscope was
// given (pg.Redact: the last guard, every error passes it), and with the
// control and format runes a name or a server's message in it may hold
// written as visible escapes (quote.Escape: it goes to a terminal).
func Message(err error) string {
	if err == nil {
		return ""
	}
	return quote.Escape(pg.Redact(err.Error()))
}

// NewRoot builds the whole command tree. Subcommands are listed here explicitly.
func NewRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "lagscope",
		Short: "Find where PostgreSQL logical replication lag comes from",
		Long: `lagscope measures a logical replication path end to end - the publisher's
walsender and the subscriber's apply worker: CPU, run-queue delay, wait events
sampled many times a second, LSN positions and rates - and names the stage that
limits the drain, with its evidence and what will and will not help.

It only observes the servers it diagnoses (read-only sessions; a role with
pg_monitor is enough). Its lab creates disposable publisher/subscriber clusters
on this machine that reproduce each bottleneck on demand.

` + exitCodesHelp(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Read().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return Usagef("%v (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(subcommands()...)
	root.SetHelpCommand(helpCommand(root))
	strictArgs(root)
	return root
}
