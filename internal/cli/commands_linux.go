package cli

import "github.com/spf13/cobra"

// labCommands is 'lagscope lab': its disposable pairs are run with Linux's
// parent-death signal, cgroups, page-cache eviction and /proc.
func labCommands() []*cobra.Command { return []*cobra.Command{newLabCmd()} }
