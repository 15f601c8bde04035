package cli

import "github.com/spf13/cobra"

// subcommands lists every top-level command, in the order --help shows them.
func subcommands() []*cobra.Command {
	cmds := []*cobra.Command{
		newDiagnoseCmd(),
		newReportCmd(),
		newCheckCmd(),
		newExporterCmd(),
		newWatchCmd(),
		newRecordCmd(),
		newTimelineCmd(),
	}
	cmds = append(cmds, labCommands()...)
	return append(cmds,
		newProxyCmd(),
		newVersionCmd(),
	)
}
