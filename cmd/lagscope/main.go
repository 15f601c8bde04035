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
)

func main() {
	if path := os.Getenv("LAGSCOPE_CPUPROFILE"); path != "" {
		// For measuring lagscope's own overhead (docs/log/performance.md).
		if f, err := os.Create(path); err == nil {
			_ = pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.NewRoot().ExecuteContext(ctx)
	stop()
	if msg := cli.Message(err); msg != "" {
		fmt.Fprintln(os.Stderr, "lagscope:", msg)
	}
	code := cli.ExitCode(err)
	if code != 0 {
		pprof.StopCPUProfile()
		os.Exit(code)
	}
}
