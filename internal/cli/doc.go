// Package cli builds lagscope's command tree. Each command binds its flags into an
// options struct with a Validate method; commands return errors and never exit.
// Errors wrapped with Usage map to exit code 2, everything else that fails to 3
// unless a command returns a *ExitError with its own code.
package cli
