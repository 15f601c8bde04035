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
	"runtime/pprof"
	"syscall"

	"github.com/lagscope/lagscope/internal/cli"
	"github.com/lagscope/lagscope/internal/safefile"
)

func main() {
	endProfile := func() {}
	if path := os.Getenv("LAGSCOPE_CPUPROFILE"); path != "" {
		// For measuring lagscope's own overhead (docs/log/performance.md).
		if f, err := safefile.Create(path); err == nil {
			_ = pprof.StartCPUProfile(f)
			endProfile = func() { pprof.StopCPUProfile(); f.Close() } // Close renames it into place
		}
	}
	defer endProfile()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.NewRoot().ExecuteContext(ctx)
	stop()
	if msg := cli.Message(err); msg != "" {
		fmt.Fprintln(os.Stderr, "lagscope:", msg)
	}
	code := cli.ExitCode(err)
	if code != 0 {
		endProfile()
		os.Exit(code)
	}
}
