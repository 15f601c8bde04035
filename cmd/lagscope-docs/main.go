// Command lagscope-docs writes lagscope's man pages and shell completion
// scripts from its command tree (internal/docgen), for 'make dist':
//
//	go run ./cmd/lagscope-docs -man DIR -completions DIR -version v0.1.0 -date 2026-12-05
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/lagscope/lagscope/internal/cli"
	"github.com/lagscope/lagscope/internal/docgen"
)

func main() {
	man := flag.String("man", "", "directory for the man pages (section 1)")
	comp := flag.String("completions", "", "directory for the bash, zsh and fish completion scripts")
	version := flag.String("version", "devel", "the version the man pages name")
	date := flag.String("date", "", "the man pages' date, YYYY-MM-DD (default: today)")
	flag.Parse()
	if err := run(*man, *comp, *version, *date); err != nil {
		fmt.Fprintln(os.Stderr, "lagscope-docs:", err)
		os.Exit(2)
	}
}

func run(man, comp, version, date string) error {
	if man == "" && comp == "" {
		return fmt.Errorf("give -man DIR, -completions DIR or both")
	}
	d := time.Now().UTC()
	if date != "" {
		var err error
		if d, err = time.Parse(time.DateOnly, date); err != nil {
			return fmt.Errorf("-date %q: give YYYY-MM-DD", date)
		}
	}
	if man != "" {
		if err := docgen.Man(cli.NewRoot(), man, version, d); err != nil {
			return err
		}
	}
	if comp != "" {
		return docgen.Completions(cli.NewRoot(), comp)
	}
	return nil
}
