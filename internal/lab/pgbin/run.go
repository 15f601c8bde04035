package pgbin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// stderrLines is how many of a failed program's last stderr lines its error quotes.
const stderrLines = 3

// runCommand runs name with args and returns its standard output. Standard
// error goes to progress (when not nil) and its last lines into the error when
// the program fails.
func runCommand(ctx context.Context, progress io.Writer, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if progress != nil {
		cmd.Stderr = io.MultiWriter(progress, &stderr)
	}
	// A killed script may leave children holding its pipes: stop waiting for them.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if tail := lastLines(stderr.String(), stderrLines); tail != "" {
			return stdout.Bytes(), fmt.Errorf("%w: %s", err, tail)
		}
		return stdout.Bytes(), err
	}
	return stdout.Bytes(), nil
}

// lastLines returns the last n non-empty lines of s joined with " / ".
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
