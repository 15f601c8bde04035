// Package watch is 'lagscope watch': a live terminal view of one pair. A
// monitor samples the pair (positions every second, a verdict every step
// over a rolling window); State folds both in (state.go, pure), view.go
// draws it, tui.go runs it as a bubbletea program with keys, and plain.go
// prints one line per path and step when stdout is not a terminal.
package watch
