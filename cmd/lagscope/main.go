// Command lagscope finds where PostgreSQL logical replication lag comes from.
//
// main only builds the command tree, runs it with a context that is cancelled on
// SIGINT/SIGTERM, and maps the returned error to an exit code (see cli.ExitCode).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/lagscope/lagscope/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.NewRoot().ExecuteContext(ctx)
	stop()
	if msg := cli.Message(err); msg != "" {
		fmt.Fprintln(os.Stderr, "lagscope:", msg)
	}
	os.Exit(cli.ExitCode(err))
}
