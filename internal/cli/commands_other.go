//go:build !linux

package cli

import "github.com/spf13/cobra"

// labCommands is empty outside Linux: the lab drives its disposable pairs
// with Linux's parent-death signal, cgroups, page-cache eviction and /proc.
// What an operator runs from a workstation (diagnose, check, report, watch,
// the exporter) needs none of them.
func labCommands() []*cobra.Command { return nil }
