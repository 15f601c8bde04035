package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lagscope/lagscope/internal/buildinfo"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print lagscope's version, the commit it was built from and its Go version",
		Long: `Prints the module version, the commit (and whether the checkout had
uncommitted changes) and the Go version, as the Go toolchain stamped them in
the binary; the same version is in every JSON and HTML report and in the
exporter's lagscope_build_info. Same as 'lagscope --version'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), buildinfo.Read())
			return err
		},
	}
}
