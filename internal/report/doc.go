// Package report holds lagscope's one versioned diagnosis report and its
// renderers: text (80 columns), markdown and JSON, each a
// func(io.Writer, Report) error. A saved JSON report re-renders with
// 'lagscope report --input'.
package report
