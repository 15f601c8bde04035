package docgen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagscope/lagscope/internal/cli"
	"github.com/lagscope/lagscope/internal/docgen"
)

// helpLists returns the commands 'lagscope ARGS --help' lists under
// "Available Commands:", as the operator reads them.
func helpLists(t *testing.T, args ...string) []string {
	t.Helper()
	root := cli.NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append(args, "--help"))
	if err := root.Execute(); err != nil {
		t.Fatalf("lagscope %s --help: %v", strings.Join(args, " "), err)
	}
	var names []string
	in := false
	for _, l := range strings.Split(out.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "Available Commands:"):
			in = true
		case in && strings.TrimSpace(l) == "":
			in = false
		case in:
			names = append(names, strings.Fields(l)[0])
		}
	}
	return names
}

// everyCommand walks --help from the root down: each command path --help
// lists, except "help" itself (a page about pages).
func everyCommand(t *testing.T) [][]string {
	var all [][]string
	var walk func(path []string)
	walk = func(path []string) {
		for _, n := range helpLists(t, path...) {
			if n == "help" {
				continue
			}
			p := append(append([]string{}, path...), n)
			all = append(all, p)
			walk(p)
		}
	}
	walk(nil)
	return all
}

func TestManPagesCoverEveryCommandHelpLists(t *testing.T) {
	dir := t.TempDir()
	if err := docgen.Man(cli.NewRoot(), dir, "v0.1.0", time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	cmds := append([][]string{nil}, everyCommand(t)...)
	if len(cmds) < 10 {
		t.Fatalf("--help listed only %d commands: the walk is broken", len(cmds))
	}
	for _, path := range cmds {
		name := strings.Join(append([]string{"lagscope"}, path...), "-") + ".1"
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("lagscope %s: no man page: %v", strings.Join(path, " "), err)
			continue
		}
		if !bytes.Contains(b, []byte(`.TH "LAGSCOPE" "1"`)) || !bytes.Contains(b, []byte("lagscope v0.1.0")) {
			t.Errorf("%s: not a section-1 page of lagscope v0.1.0:\n%.300s", name, b)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	if len(pages) != len(cmds) {
		t.Errorf("%d man pages for %d commands --help lists", len(pages), len(cmds))
	}
}

// complete asks lagscope what the completion scripts ask it: the words
// that may follow path.
func complete(t *testing.T, path []string) string {
	root := cli.NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(new(bytes.Buffer))
	root.SetArgs(append(append([]string{cobra.ShellCompRequestCmd}, path...), ""))
	if err := root.Execute(); err != nil {
		t.Fatalf("__complete %v: %v", path, err)
	}
	return out.String()
}

func TestCompletionsCoverEveryCommandHelpLists(t *testing.T) {
	dir := t.TempDir()
	if err := docgen.Completions(cli.NewRoot(), dir); err != nil {
		t.Fatal(err)
	}
	for _, s := range docgen.Shells {
		b, err := os.ReadFile(filepath.Join(dir, s.File()))
		if err != nil {
			t.Fatal(err)
		}
		// Every script asks the binary for its words (cobra's dynamic
		// completion), so they follow the tree the binary has.
		if !bytes.Contains(b, []byte("__complete")) || !bytes.Contains(b, []byte("lagscope")) {
			t.Errorf("%s: not a completion script for lagscope:\n%.300s", s, b)
		}
	}
	for _, path := range everyCommand(t) {
		parent, name := path[:len(path)-1], path[len(path)-1]
		words := complete(t, parent)
		found := false
		for _, l := range strings.Split(words, "\n") {
			if strings.SplitN(l, "\t", 2)[0] == name {
				found = true
			}
		}
		if !found {
			t.Errorf("completing 'lagscope %s ' does not offer %q:\n%s", strings.Join(parent, " "), name, words)
		}
	}
}

func TestScriptRefusesAnUnknownShell(t *testing.T) {
	if _, err := docgen.Script(cli.NewRoot(), "tcsh"); err == nil || !strings.Contains(err.Error(), "bash, zsh or fish") {
		t.Errorf("got %v", err)
	}
}
