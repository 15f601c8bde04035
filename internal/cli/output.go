package cli

import (
	"errors"
	"os"
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
// window of samples must not be lost to a typo in --save-samples. It leaves
// no file behind.
func checkWritable(flag, path string) error {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return Usagef("%s %s: %v", flag, path, errors.Unwrap(err))
	}
	f.Close()
	if os.IsNotExist(statErr) {
		os.Remove(path)
	}
	return nil
}
