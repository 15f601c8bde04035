package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/valid"
)

// snapshotSeeds are real snapshots and hostile edits of them.
func snapshotSeeds(f *testing.F) {
	for _, p := range []string{"testdata/misconfigured-pg15.json", "testdata/misconfigured-pg16.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(bytes.Replace(b, []byte(`"name": "lab_sub"`), []byte(`"name": "x'; DROP TABLE t; --"`), 1))
		f.Add(bytes.Replace(b, []byte(`"name": "full_t"`), []byte(`"name": "a\u0000b"`), 1))
	}
	f.Add([]byte(`{"publisher":{"slots":[{"name":"Bad Slot","type":"logical"}]}}`))
	f.Add([]byte(`{"subscriber":{"subscriptions":[{"name":"","slot":"s"}]}}`))
}

// Any file given to 'check --from-snapshots' is refused with a one-line
// error, or holds only names a server could have written (slot names by
// PostgreSQL's rule, other names 1-63 bytes without NUL) and runs every
// check and renders in every format without a panic or an error.
func FuzzReadSnapshot(f *testing.F) {
	snapshotSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadSnapshots(bytes.NewReader(b))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		var slots []Slot
		if s.Publisher != nil {
			slots = append(slots, s.Publisher.Slots...)
			for _, tb := range s.Publisher.Tables {
				if valid.ObjectName("", tb.Name) != nil || valid.ObjectName("", tb.Schema) != nil {
					t.Fatalf("accepted table name %q.%q", tb.Schema, tb.Name)
				}
			}
		}
		if s.Subscriber != nil {
			for _, su := range s.Subscriber.Subscriptions {
				if valid.ObjectName("", su.Name) != nil || valid.OptionalSlotName("", su.Slot) != nil {
					t.Fatalf("accepted subscription %q with slot %q", su.Name, su.Slot)
				}
			}
		}
		if s.Standby != nil {
			slots = append(slots, s.Standby.Slots...)
		}
		for _, sl := range slots {
			if valid.SlotName("", sl.Name) != nil {
				t.Fatalf("accepted slot name %q", sl.Name)
			}
		}
		rep := NewReport(s, Run(s, All))
		for format := range Renderers {
			if err := Render(&bytes.Buffer{}, rep, format); err != nil {
				t.Fatalf("%s rendering of accepted snapshots failed: %v", format, err)
			}
		}
	})
}

// Any file given to 'check --input' is refused with a one-line error, or
// holds only known check IDs, statuses, sides and severities and renders in
// every format without a panic or an error.
func FuzzCheckInput(f *testing.F) {
	for _, p := range []string{"testdata/misconfigured-pg15.json", "testdata/misconfigured-pg16.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		s, err := ReadSnapshots(bytes.NewReader(b))
		if err != nil {
			f.Fatal(err)
		}
		js, _ := json.Marshal(NewReport(s, Run(s, All)))
		f.Add(js)
		f.Add(bytes.Replace(js, []byte(`"severity":"error"`), []byte(`"severity":"fatal"`), 1))
		f.Add(bytes.Replace(js, []byte(`"check":"wal-level"`), []byte(`"check":"<script>"`), 1))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ReadReport(bytes.NewReader(b))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		ids := checkIDs()
		for _, res := range r.Results {
			if valid.OneOf("", res.Check, ids) != nil || valid.OneOf("", string(res.Status), statuses) != nil {
				t.Fatalf("accepted result %q with status %q", res.Check, res.Status)
			}
			for _, fd := range res.Findings {
				if valid.OneOf("", string(fd.Severity), severities) != nil {
					t.Fatalf("accepted severity %q", fd.Severity)
				}
			}
		}
		for format := range Renderers {
			if err := Render(&bytes.Buffer{}, r, format); err != nil {
				t.Fatalf("%s rendering of an accepted report failed: %v", format, err)
			}
		}
	})
}
