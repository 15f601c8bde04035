package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/audit"
)

// runCheck executes 'lagscope check args...' through the command tree
// (adding the command when the tree does not list it yet) and returns the
// output and exit code.
func runCheck(t *testing.T, args ...string) (string, int) {
	t.Helper()
	root := NewRoot()
	found := false
	for _, c := range root.Commands() {
		if c.Name() == "check" {
			found = true
		}
	}
	if !found {
		root.AddCommand(newCheckCmd())
	}
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"check"}, args...))
	err := root.ExecuteContext(context.Background())
	if err != nil {
		out.WriteString(Message(err))
	}
	return out.String(), ExitCode(err)
}

// recorded is a snapshot pair recorded from a misconfigured lab pair.
const recorded = "../audit/testdata/misconfigured-pg16.json"

func TestCheckBadInput(t *testing.T) {
	for _, v := range []string{"PGHOST", "PGSERVICE", "PGDATABASE"} {
		t.Setenv(v, "")
	}
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	_, closedPort, _ := net.SplitHostPort(closed.Addr().String())
	closed.Close()
	cases := []struct {
		name   string
		args   []string
		wantIn string
	}{
		{"no server is a usage error that says what to give", nil, "--publisher or --subscriber is required"},
		{"a refused connection is one line without the password",
			[]string{"--subscriber", "host=127.0.0.1 port=" + closedPort + " user=u password=hunter2 dbname=x"}, "connect to subscriber"},
		{"a malformed connection string says how to write one", []string{"--publisher", "host='unterminated password=hunter2"}, "connection string"},
		{"an unknown format is a usage error", []string{"--publisher", "host=x", "--format", "yaml"}, "--format"},
		{"a saved report and saved snapshots exclude each other", []string{"--input", "a.json", "--from-snapshots", "b.json"}, "exclude each other"},
		{"a saved report with a server is a usage error", []string{"--input", "a.json", "--publisher", "host=x"}, "do not give --publisher"},
		{"a missing report file is a usage error", []string{"--input", filepath.Join(t.TempDir(), "none.json")}, "open"},
		{"a diagnose report is not a check report", []string{"--input", writeFile(t, `{"tool":"lagscope","schema_version":1}`)}, "not a lagscope check report"},
		{"an unknown flag is a usage error", []string{"--publisherr", "x"}, "unknown flag"},
		{"--primary without --standby is a usage error", []string{"--publisher", "host=x", "--primary", "host=y"}, "give --standby too"},
		{"a refused standby connection is one line without the password",
			[]string{"--standby", "host=127.0.0.1 port=" + closedPort + " user=u password=hunter2 dbname=x"}, "connect to standby"},
		{"saved snapshots with a primary is a usage error", []string{"--from-snapshots", "b.json", "--primary", "host=x"}, "do not give --publisher, --subscriber, --standby or --primary"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, code := runCheck(t, c.args...)
			if code != ExitUsage {
				t.Errorf("exit code %d, want %d; output %q", code, ExitUsage, out)
			}
			if !strings.Contains(out, c.wantIn) {
				t.Errorf("output %q does not mention %q", out, c.wantIn)
			}
			if strings.Contains(out, "hunter2") {
				t.Errorf("output shows the password: %q", out)
			}
			if n := strings.Count(strings.TrimSpace(out), "\n"); n > 0 {
				t.Errorf("error is %d lines, want one: %q", n+1, out)
			}
		})
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckOnRecordedSnapshots(t *testing.T) {
	text, code := runCheck(t, "--from-snapshots", recorded)
	if code != ExitFinding {
		t.Fatalf("exit code %d, want %d (errors and warnings found); output:\n%s", code, ExitFinding, text)
	}
	for _, want := range []string{"ERROR    full-identity-no-index", "CREATE INDEX CONCURRENTLY ON public.full_t (id)", "WARNING  replica-triggers"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if len(line) > 80 {
			t.Errorf("line %d is %d columns: %q", i+1, len(line), line)
		}
	}
	md, code := runCheck(t, "--from-snapshots", recorded, "--format", "markdown")
	if code != ExitFinding || !strings.Contains(md, "## lagscope check") || !strings.Contains(md, "| error | `full-identity-no-index` |") {
		t.Errorf("markdown (exit %d):\n%s", code, md)
	}

	// --json, then --input re-renders the same report.
	js, code := runCheck(t, "--from-snapshots", recorded, "--json")
	if code != ExitFinding {
		t.Fatalf("--json exit code %d", code)
	}
	var rep audit.Report
	if err := json.Unmarshal([]byte(js), &rep); err != nil || rep.SchemaVersion != audit.SchemaVersion || rep.Kind != "check" {
		t.Fatalf("--json output is not a check report (%v): %.200s", err, js)
	}
	input := writeFile(t, js)
	again, code := runCheck(t, "--input", input)
	if !strings.Contains(again, "rebuilt from "+input) || !strings.Contains(text, "rebuilt from "+recorded) {
		t.Errorf("a report rebuilt from a file does not say which:\n%s", again)
	}
	if code != ExitFinding || withoutSource(again) != withoutSource(text) {
		t.Errorf("--input re-rendered (exit %d) differently:\n%s", code, again)
	}

	// --save-snapshots writes what --from-snapshots reads.
	saved := filepath.Join(t.TempDir(), "snap.json")
	if _, code := runCheck(t, "--from-snapshots", recorded, "--save-snapshots", saved); code != ExitFinding {
		t.Fatalf("--save-snapshots exit code %d", code)
	}
	if out, _ := runCheck(t, "--from-snapshots", saved); withoutSource(out) != withoutSource(text) {
		t.Errorf("saved snapshots render differently:\n%s", out)
	}
}

func TestCheckExitsZeroWithoutErrorsOrWarnings(t *testing.T) {
	rep := audit.Report{SchemaVersion: audit.SchemaVersion, Tool: "lagscope", Kind: audit.ReportKind,
		Publisher: &audit.Server{Version: "16.14", Database: "app"},
		Results: []audit.Result{{Check: "wal-level", Side: audit.PublisherSide, Status: audit.StatusOK},
			{Check: "binary-transfer", Side: audit.SubscriberSide, Status: audit.StatusFindings, Findings: []audit.Finding{{Check: "binary-transfer", Severity: audit.Info,
				Objects: []string{"subscription s"}, Found: "binary = false", Why: "text transfer", Fix: "ALTER SUBSCRIPTION s SET (binary = true);"}}}},
		Summary: audit.Summary{Infos: 1, OK: 1, WithFindings: 1}}
	b, _ := json.Marshal(rep)
	out, code := runCheck(t, "--input", writeFile(t, string(b)))
	if code != ExitOK {
		t.Errorf("exit code %d with only an info finding, want 0:\n%s", code, out)
	}
	if !strings.Contains(out, "INFO     binary-transfer") {
		t.Errorf("the info finding is not shown:\n%s", out)
	}
}

// sourceLine is the header line of a report rebuilt from a file, wrapped
// or not.
var sourceLine = regexp.MustCompile(`(?s)rebuilt from .*?advises\n`)

// withoutSource is a rendered report without the line naming its file.
func withoutSource(s string) string { return sourceLine.ReplaceAllString(s, "") }
