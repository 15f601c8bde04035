// Package docgen writes what is generated from lagscope's command tree for
// the release artifacts: a man page per command (section 1, by
// github.com/spf13/cobra/doc) and the shell completion scripts (cobra's own
// generators, the same as 'lagscope completion SHELL' prints). Both come from
// the tree itself, so they cannot drift from --help; a test checks that they
// cover every command --help lists.
package docgen
