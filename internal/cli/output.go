package cli

import (
	"errors"

	"github.com/lagscope/lagscope/internal/safefile"
)

// formats are the output formats of every command that renders a report.
var formats = map[string]bool{"text": true, "markdown": true, "json": true, "html": true}

// outputFormat is the one output convention: --format text|markdown|json|html
// ("" = text), --json a shorthand for --format json; the two contradicting
// each other is refused.
func outputFormat(format string, asJSON bool) (string, error) {
	switch {
	case asJSON && format != "" && format != "json":
		return "", Usagef("--json and --format %s contradict each other: give one", format)
	case asJSON:
		return "json", nil
	case format == "":
		return "text", nil
	case !formats[format]:
		return "", Usagef("--format %q: use text, markdown, json or html", format)
	}
	return format, nil
}

// checkWritable says, before any work, whether path can be written: a
// window of samples must not be lost to a typo in --save-samples. It
// neither opens nor creates path (a temporary file in its directory is
// created and removed, as safefile will write it).
func checkWritable(flag, path string) error {
	if err := safefile.CheckWritable(path); err != nil {
		if u := errors.Unwrap(err); u != nil {
			err = u
		}
		return Usagef("%s %s: %v", flag, path, err)
	}
	return nil
}
