//go:build linux

package cli

import (
	"encoding/json"
	"os"

	"github.com/lagscope/lagscope/internal/lab/calibration"
	"github.com/lagscope/lagscope/internal/safefile"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/spf13/cobra"
)

func newLabCalibrateCmd() *cobra.Command {
	var svg string
	var asJSON bool
	c := &cobra.Command{
		Use:   "calibrate RECORDING...",
		Short: "Set the in-server CPU signals beside /proc's run-queue shares in recorded runs",
		Long: `Reads recordings made with /proc (lab run --diagnose --save-samples, or the
lab integration tests with LAGSCOPE_RECORD_DIR) and prints, per side, scenario
and version, the /proc run-queue share of the walsender or apply worker beside
what lagscope measured from inside the server: the stretch of its fixed CPU
burst and the wake-up lateness of its probe session. These are the figures
diagnose relies on without /proc (docs/no-proc.md). The scenario is taken from
the file name (diag-<scenario>-pg<version>-... or <scenario>-pg<version>-...).`,
		Example: `  lagscope lab calibrate --svg docs/img/no-proc-calibration.svg recordings/*.json`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ps []calibration.Point
			for _, path := range args {
				rec, err := readRecordingFile(path)
				if err != nil {
					return err
				}
				ps = append(ps, calibration.Points(calibration.Label(path), rec)...)
			}
			if len(ps) == 0 {
				return Usagef("no recording has both /proc figures and CPU bursts (recordings before lagscope's samples version 4 have no bursts; ones made with --no-proc have no /proc)")
			}
			calibration.Sort(ps)
			if svg != "" {
				f, err := safefile.Create(svg)
				if err != nil {
					return Usagef("--svg: %v", err)
				}
				if err := calibration.PlotSVG(f, ps); err != nil {
					f.Abort()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(ps)
			}
			return calibration.Markdown(cmd.OutOrStdout(), ps)
		},
	}
	c.Flags().StringVar(&svg, "svg", "", "also draw the points to this SVG file")
	c.Flags().BoolVar(&asJSON, "json", false, "print the points as JSON instead of the table")
	return c
}

// readRecordingFile loads a saved recording.
func readRecordingFile(path string) (*sample.Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Usagef("%v", err)
	}
	defer f.Close()
	rec, err := sample.ReadRecording(f)
	if err != nil {
		return nil, Usagef("%s: %v", path, err)
	}
	return rec, nil
}
