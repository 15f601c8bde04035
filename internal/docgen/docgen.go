package docgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Shell is a shell lagscope writes a completion script for.
type Shell string

// The shells of the release artifacts (cobra also knows powershell, which
// 'lagscope completion powershell' prints; no package installs it).
const (
	Bash Shell = "bash"
	Zsh  Shell = "zsh"
	Fish Shell = "fish"
)

// Shells lists the completion scripts Completions writes, in order.
var Shells = []Shell{Bash, Zsh, Fish}

// File is where a package installs the shell's completion script, relative
// to the completions directory (the layout of /usr/share: bash-completion's
// completions/lagscope, zsh's vendor-completions/_lagscope, fish's
// vendor_completions.d/lagscope.fish).
func (s Shell) File() string {
	switch s {
	case Bash:
		return "lagscope.bash"
	case Zsh:
		return "_lagscope"
	case Fish:
		return "lagscope.fish"
	}
	return ""
}

// Script returns the shell's completion script for root.
func Script(root *cobra.Command, s Shell) ([]byte, error) {
	var b bytes.Buffer
	var err error
	switch s {
	case Bash:
		err = root.GenBashCompletionV2(&b, true)
	case Zsh:
		err = root.GenZshCompletion(&b)
	case Fish:
		err = root.GenFishCompletion(&b, true)
	default:
		return nil, fmt.Errorf("no completion script for shell %q: use bash, zsh or fish", s)
	}
	if err != nil {
		return nil, fmt.Errorf("%s completion: %w", s, err)
	}
	return b.Bytes(), nil
}

// Completions writes every shell's script of Shells into dir, named by
// Shell.File.
func Completions(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range Shells {
		b, err := Script(root, s)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, s.File()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Man writes a section-1 man page for every command of root that --help
// shows (lagscope.1, lagscope-diagnose.1, lagscope-lab-run.1, ...) into dir.
// date is the pages' date (the release's, so that a rebuild writes the same
// bytes).
func Man(root *cobra.Command, dir string, version string, date time.Time) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root.DisableAutoGenTag = true
	// cobra adds 'completion' (and its shells) when it executes; add it now,
	// as --help lists it.
	root.InitDefaultCompletionCmd()
	h := &doc.GenManHeader{Title: "LAGSCOPE", Section: "1", Date: &date, Source: "lagscope " + version, Manual: "lagscope manual"}
	if err := doc.GenManTree(root, h, dir); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	return nil
}
