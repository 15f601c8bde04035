package render

import (
	"encoding/json"
	"fmt"
	"io"
)

// RenderWith writes r with the renderer named format from renderers; it serves
// every lagscope report type (diagnose's, check's).
func RenderWith[R any, F ~func(io.Writer, R) error](renderers map[string]F, w io.Writer, r R, format string) error {
	f, ok := renderers[format]
	if !ok {
		return fmt.Errorf("unknown format %q: use text, markdown, json or html", format)
	}
	return f(w, r)
}

// IndentedJSON writes v as JSON indented by two spaces, as every lagscope
// report is saved.
func IndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
