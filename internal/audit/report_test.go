package audit

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// recorded loads the snapshots integration tests recorded from lab pairs.
func recorded(t *testing.T) map[string]Snapshots {
	t.Helper()
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		t.Fatal("no recorded snapshots in testdata/ (go test -run Integration -record writes them)")
	}
	out := map[string]Snapshots{}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadSnapshots(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = s
	}
	return out
}

// The lab pair was recorded with a REPLICA IDENTITY FULL table whose only
// subscriber index is partial, three extra indexes on hot and an ALWAYS
// trigger (and the lab's unlimited max_slot_wal_keep_size); the checks must
// find exactly that on every recorded version.
func TestRecordedLabSnapshots(t *testing.T) {
	for name, s := range recorded(t) {
		t.Run(name, func(t *testing.T) {
			if len(s.Publisher.Unreadable)+len(s.Subscriber.Unreadable) > 0 {
				t.Errorf("superuser snapshot with unreadable sections: %v %v", s.Publisher.Unreadable, s.Subscriber.Unreadable)
			}
			var fs []Finding
			for _, r := range Run(s, All) {
				fs = append(fs, r.Findings...)
			}
			for _, w := range []want{
				{"full-identity-no-index", Error, "table public.full_t"},
				{"extra-subscriber-indexes", Warning, "table public.hot"},
				{"extra-subscriber-indexes", Info, "table public.full_t"},
				{"replica-triggers", Warning, "trigger hot_touch"},
				{"replica-identity-full", Info, "table public.full_t"},
				{"slot-wal-keep-size", Warning, "setting max_slot_wal_keep_size"},
			} {
				m := matching(fs, w.check, w.object)
				if len(m) != 1 || m[0].Severity != w.sev {
					t.Errorf("%s: got %v", w, m)
				}
			}
			if len(fs) != 6 {
				t.Errorf("%d findings, want 6:%s", len(fs), describeFindings(fs))
			}
		})
	}
}

func TestRenderersMatchGoldenFiles(t *testing.T) {
	for name, s := range recorded(t) {
		rep := NewReport(s, Run(s, All))
		for format, render := range Renderers {
			if format == "json" {
				continue
			}
			t.Run(name+"."+format, func(t *testing.T) {
				var b bytes.Buffer
				if err := render(&b, rep); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", name+"."+map[string]string{"text": "txt", "markdown": "md", "html": "html"}[format])
				if *update {
					if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test -run Golden -update writes it)", err)
				}
				if b.String() != string(want) {
					t.Errorf("%s differs from %s (go test -run Golden -update rewrites it):\n%s", format, golden, b.String())
				}
			})
		}
	}
}

func TestTextFitsIn80Columns(t *testing.T) {
	s := healthy()
	s.Publisher.Slots[0].Active = false
	s.Subscriber.Subscriptions[0].Enabled = false
	s.Publisher.Tables[0].Name = strings.Repeat("a_very_long_table_name_", 5)
	s.Subscriber.Tables[0].Name = s.Publisher.Tables[0].Name
	s.Subscriber.Subscriptions[0].Relations[0].Table = s.Publisher.Tables[0].Qualified()
	s.Subscriber.Tables[0].Columns = s.Subscriber.Tables[0].Columns[:1]
	var b bytes.Buffer
	if err := Text(&b, NewReport(s, Run(s, All))); err != nil {
		t.Fatal(err)
	}
	statements := map[string]bool{} // printed whole on a line of their own: never folded
	for _, res := range Run(s, All) {
		for _, f := range res.Findings {
			for _, st := range f.Run {
				statements[st.Text] = true
			}
		}
	}
	for i, line := range strings.Split(b.String(), "\n") {
		if len(line) > textWidth && !statements[strings.TrimSpace(line)] {
			t.Errorf("line %d is %d columns: %q", i+1, len(line), line)
		}
	}
	if !strings.Contains(b.String(), "column-mismatch") {
		t.Errorf("the long-named table's finding is missing:\n%s", b.String())
	}
}

func TestAJSONReportReadsBackAndRendersTheSame(t *testing.T) {
	s := fullEvents(healthy())
	rep := NewReport(s, Run(s, All))
	var j bytes.Buffer
	if err := JSON(&j, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.String(), `"schema_version": 2`) {
		t.Errorf("no schema_version in %s", j.String()[:200])
	}
	back, err := ReadReport(&j)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	Text(&a, rep)
	Text(&b, back)
	if a.String() != b.String() {
		t.Errorf("re-rendered report differs:\n%s\nvs\n%s", a.String(), b.String())
	}
	if back.Problems() != rep.Problems() || !rep.Problems() {
		t.Errorf("Problems: %v after reading, %v before; want true", back.Problems(), rep.Problems())
	}
	for _, bad := range []string{`{}`, `{"tool": "lagscope", "kind": "diagnose", "schema_version": 1}`,
		`{"tool": "lagscope", "kind": "check", "schema_version": 99}`, `not json`} {
		if _, err := ReadReport(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadReport(%q) accepted it", bad)
		}
	}
}

func TestReportsOfSchema1And2ReadBack(t *testing.T) {
	v1 := `{"schema_version": 1, "tool": "lagscope", "kind": "check", "taken": "2026-11-29T12:00:00Z",
 "summary": {"errors": 1}, "results": [{"check": "subscription-stopped", "title": "t", "side": "subscriber", "status": "findings",
 "findings": [{"check": "subscription-stopped", "severity": "error", "objects": ["subscription sub1"], "found": "Subscription sub1 is disabled.",
  "why": "w", "fix": "ALTER SUBSCRIPTION sub1 ENABLE;", "run": [{"kind": "sql", "text": "DROP TABLE users;"}]}]}]}`
	cases := []struct {
		name, json, fix string
		run             int
	}{
		{"a schema 1 report keeps its fix text as it was and carries no statements", v1, "ALTER SUBSCRIPTION sub1 ENABLE;", 0},
		{"a schema 2 report keeps its prose fix and its statements", strings.Replace(strings.Replace(v1, `"schema_version": 1`, `"schema_version": 2`, 1),
			`"fix": "ALTER SUBSCRIPTION sub1 ENABLE;"`, `"fix": "Enable the subscription."`, 1), "Enable the subscription.", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ReadReport(strings.NewReader(c.json))
			if err != nil {
				t.Fatal(err)
			}
			f := r.Findings()
			if len(f) != 1 || f[0].Fix != c.fix || len(f[0].Run) != c.run {
				t.Fatalf("findings %+v: want fix %q and %d statements", f, c.fix, c.run)
			}
		})
	}
}

func TestTheChecksIndexListsEveryCheck(t *testing.T) {
	b, err := os.ReadFile("../../docs/checks/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range All {
		if !strings.Contains(string(b), "["+string(c.ID)+"]("+string(c.ID)+".md)") {
			t.Errorf("docs/checks/README.md does not list %s", c.ID)
		}
	}
	pages, _ := filepath.Glob("../../docs/checks/*.md")
	if len(pages) != len(All)+1 {
		t.Errorf("%d pages in docs/checks for %d checks and the index", len(pages), len(All))
	}
}
