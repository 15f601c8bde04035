package audit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/pgversion"
	"github.com/lagscope/lagscope/internal/quote"
)

// feedbackInfo is the finding every standby with hot_standby_feedback on
// has: what its feedback holds on the primary.
var feedbackInfo = want{"standby-feedback-xmin", Info, "setting hot_standby_feedback (standby)"}

// saneStandby is a streaming PostgreSQL 16 standby on slot sb1 of its
// primary, with every standby setting at its default, and the primary with
// a bound on its slots' WAL, wal_compression on and no synchronous
// standbys: no standby check has anything to say.
func saneStandby() Snapshots {
	v := pgversion.Version{Major: 16, Minor: 14}
	return Snapshots{
		Standby: &Standby{Version: v, Taken: taken, InRecovery: true, Database: "app", ConninfoAppName: "sb1",
			Settings: Settings{
				"hot_standby": {Value: "on"}, "hot_standby_feedback": {Value: "off"}, "primary_slot_name": {Value: "sb1"},
				"max_standby_streaming_delay": {Value: "30000", Unit: "ms"}, "max_standby_archive_delay": {Value: "30000", Unit: "ms"},
				"recovery_min_apply_delay": {Value: "0", Unit: "ms"}, "recovery_prefetch": {Value: "try"},
				"wal_receiver_status_interval": {Value: "10", Unit: "s"},
			},
			Receiver: &Receiver{PID: 77, Status: "streaming", SenderHost: "/tmp", SenderPort: 5432, Slot: "sb1"}},
		Primary: &Primary{Version: v, Taken: taken, Database: "app", CurrentLSN: 0x5000000,
			Settings: Settings{
				"wal_compression": {Value: "on"}, "full_page_writes": {Value: "on"}, "max_slot_wal_keep_size": {Value: "10240", Unit: "MB"},
				"max_wal_size": {Value: "1024", Unit: "MB"}, "synchronous_standby_names": {Value: ""}, "synchronous_commit": {Value: "on"},
				"wal_sender_timeout": {Value: "60000", Unit: "ms"}, "autovacuum_freeze_max_age": {Value: "200000000"}, "block_size": {Value: "8192"},
			},
			Slots: []Slot{{Name: "sb1", Type: "physical", Active: true, XminAge: -1, CatalogXminAge: -1, RestartLSN: 0x4000000,
				WALStatus: "reserved", SafeWALSize: 10 << 30}},
			Walsenders: []Walsender{{PID: 88, ApplicationName: "sb1", State: "streaming", SyncState: "async", Slot: "sb1", XminAge: -1}},
			WAL:        &WALStats{Records: 1000, FPI: 100, Bytes: 2_000_000}},
	}
}

func TestStandbyChecks(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		name string
		make func() Snapshots
		want []want
	}{
		{"a sane standby and primary: no finding", saneStandby, nil},
		{"a standby alone, sane: no finding", func() Snapshots { s := saneStandby(); s.Primary = nil; return s }, nil},
		{"max_standby_streaming_delay = -1 is a warning naming it", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["max_standby_streaming_delay"] = Setting{Value: "-1", Unit: "ms"}
			return s
		}, []want{{"standby-delay-unbounded", Warning, "setting max_standby_streaming_delay (standby)"}}},
		{"both delays -1: one finding each", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["max_standby_streaming_delay"] = Setting{Value: "-1", Unit: "ms"}
			s.Standby.Settings["max_standby_archive_delay"] = Setting{Value: "-1", Unit: "ms"}
			return s
		}, []want{{"standby-delay-unbounded", Warning, "setting max_standby_streaming_delay (standby)"},
			{"standby-delay-unbounded", Warning, "setting max_standby_archive_delay (standby)"}}},
		{"-1 without hot_standby: no query can conflict", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["max_standby_streaming_delay"] = Setting{Value: "-1", Unit: "ms"}
			s.Standby.Settings["hot_standby"] = Setting{Value: "off"}
			return s
		}, nil},
		{"feedback on, a young xmin held by the slot: info", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["hot_standby_feedback"] = Setting{Value: "on"}
			s.Primary.Slots[0].XminAge = 1200
			return s
		}, []want{feedbackInfo}},
		{"feedback on, an xmin past half autovacuum_freeze_max_age: warning", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["hot_standby_feedback"] = Setting{Value: "on"}
			s.Primary.Slots[0].XminAge = 150_000_000
			return s
		}, []want{{"standby-feedback-xmin", Warning, "setting hot_standby_feedback (standby)"}}},
		{"feedback on, an inactive slot holding an xmin: warning", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["hot_standby_feedback"] = Setting{Value: "on"}
			s.Primary.Slots[0].XminAge, s.Primary.Slots[0].Active = 5000, false
			s.Primary.Walsenders = nil
			return s
		}, []want{{"standby-feedback-xmin", Warning, "setting hot_standby_feedback (standby)"}}},
		{"recovery_min_apply_delay 5min: info", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["recovery_min_apply_delay"] = Setting{Value: "300000", Unit: "ms"}
			return s
		}, []want{{"standby-apply-delay", Info, "setting recovery_min_apply_delay (standby)"}}},
		{"recovery_min_apply_delay with remote_apply on the primary: warning, and the coupling too", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["recovery_min_apply_delay"] = Setting{Value: "300000", Unit: "ms"}
			s.Primary.Settings["synchronous_standby_names"] = Setting{Value: "FIRST 1 (SB1)"}
			s.Primary.Settings["synchronous_commit"] = Setting{Value: "remote_apply"}
			s.Primary.Walsenders[0].SyncState = "sync"
			return s
		}, []want{{"standby-apply-delay", Warning, "setting recovery_min_apply_delay (standby)"},
			{"standby-sync-commit", Warning, "setting synchronous_commit (primary)"}}},
		{"wal_compression off with full_page_writes on: info", func() Snapshots {
			s := saneStandby()
			s.Primary.Settings["wal_compression"] = Setting{Value: "off"}
			s.Primary.Walsenders[0].WriteLag = f(0.8)
			return s
		}, []want{{"standby-wal-compression", Info, "setting wal_compression (primary)"}}},
		{"wal_compression off without full-page writes: nothing to compress", func() Snapshots {
			s := saneStandby()
			s.Primary.Settings["wal_compression"] = Setting{Value: "off"}
			s.Primary.Settings["full_page_writes"] = Setting{Value: "off"}
			return s
		}, nil},
		{"unlimited max_slot_wal_keep_size: a warning per physical slot, naming it", func() Snapshots {
			s := saneStandby()
			s.Primary.Settings["max_slot_wal_keep_size"] = Setting{Value: "-1", Unit: "MB"}
			s.Primary.Slots = append(s.Primary.Slots, Slot{Name: "old_sb", Type: "physical", XminAge: -1, CatalogXminAge: -1, RestartLSN: 0x1000000})
			return s
		}, []want{{"standby-slot-unbounded", Warning, "slot sb1 (primary)"}, {"standby-slot-unbounded", Warning, "slot old_sb (primary)"}}},
		{"a synchronous standby with synchronous_commit = on: info", func() Snapshots {
			s := saneStandby()
			s.Primary.Settings["synchronous_standby_names"] = Setting{Value: "ANY 1 (sb1, other)"}
			s.Primary.Walsenders[0].SyncState = "quorum"
			s.Primary.Walsenders[0].FlushLag = f(0.002)
			return s
		}, []want{{"standby-sync-commit", Info, "setting synchronous_standby_names (primary)"}}},
		{"'*' names every standby", func() Snapshots {
			s := saneStandby()
			s.Primary.Settings["synchronous_standby_names"] = Setting{Value: "*"}
			s.Primary.Settings["synchronous_commit"] = Setting{Value: "remote_apply"}
			return s
		}, []want{{"standby-sync-commit", Warning, "setting synchronous_standby_names (primary)"}}},
		{"another standby named, synchronous_commit = local: no coupling", func() Snapshots {
			s := saneStandby()
			s.Primary.Settings["synchronous_standby_names"] = Setting{Value: "sb1"}
			s.Primary.Settings["synchronous_commit"] = Setting{Value: "local"}
			return s
		}, nil},
		{"another standby named: this one is not coupled", func() Snapshots {
			s := saneStandby()
			s.Primary.Settings["synchronous_standby_names"] = Setting{Value: "other"}
			s.Primary.Settings["synchronous_commit"] = Setting{Value: "remote_apply"}
			return s
		}, nil},
		{"recovery_prefetch off on 16: info", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["recovery_prefetch"] = Setting{Value: "off"}
			return s
		}, []want{{"standby-recovery-prefetch", Info, "setting recovery_prefetch (standby)"}}},
		{"wal_receiver_status_interval 0: warning", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["wal_receiver_status_interval"] = Setting{Value: "0", Unit: "s"}
			return s
		}, []want{{"standby-status-interval", Warning, "setting wal_receiver_status_interval (standby)"}}},
		{"wal_receiver_status_interval 60s: info", func() Snapshots {
			s := saneStandby()
			s.Standby.Settings["wal_receiver_status_interval"] = Setting{Value: "60", Unit: "s"}
			return s
		}, []want{{"standby-status-interval", Info, "setting wal_receiver_status_interval (standby)"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []want
			for _, r := range Run(c.make(), All) {
				for _, fd := range r.Findings {
					for _, o := range fd.Objects {
						w := want{fd.Check, fd.Severity, o}
						if slices.Contains(c.want, w) {
							got = append(got, w)
							goto next
						}
					}
					got = append(got, want{fd.Check, fd.Severity, strings.Join(fd.Objects, ", ")})
				next:
				}
			}
			if !sameWants(got, c.want) {
				t.Errorf("findings %v, want %v", got, c.want)
			}
		})
	}
}

func sameWants(a, b []want) bool {
	if len(a) != len(b) {
		return false
	}
	for _, w := range b {
		if !slices.Contains(a, w) {
			return false
		}
	}
	return true
}

// findingOf runs one check on s and returns its only finding.
func findingOf(t *testing.T, c Check, s Snapshots) Finding {
	t.Helper()
	res := Run(s, []Check{c})
	if len(res[0].Findings) != 1 {
		t.Fatalf("%s: %s (%s) %+v, want one finding", c.ID, res[0].Status, res[0].Reason, res[0].Findings)
	}
	return res[0].Findings[0]
}

func texts(sts []quote.Statement) []string {
	var out []string
	for _, st := range sts {
		out = append(out, st.On+": "+st.Text)
	}
	return out
}

func TestStandbyFindingsSayTheCostAndFixExactlyTheSetting(t *testing.T) {
	s := saneStandby()
	s.Standby.Settings["hot_standby_feedback"] = Setting{Value: "on"}
	s.Primary.Slots[0].XminAge = 1234
	fd := findingOf(t, standbyFeedbackXmin, s)
	if !strings.Contains(fd.Found, "1234 transactions") {
		t.Errorf("feedback finding %q: want the xmin age held on the primary", fd.Found)
	}
	if got := texts(fd.Run); !slices.Equal(got, []string{"standby: ALTER SYSTEM SET hot_standby_feedback = 'off';", "standby: SELECT pg_reload_conf();"}) {
		t.Errorf("feedback fix %q", got)
	}

	t.Log("without --primary the xmin age is said to be unmeasurable")
	s.Primary = nil
	if fd := findingOf(t, standbyFeedbackXmin, s); !strings.Contains(fd.Found, "cannot be measured without --primary") {
		t.Errorf("without --primary: %q", fd.Found)
	}

	t.Log("a standby that synchronises failover slots keeps its feedback: no statement")
	s.Standby.Settings["sync_replication_slots"] = Setting{Value: "on"}
	if fd := findingOf(t, standbyFeedbackXmin, s); len(fd.Run) != 0 || !strings.HasPrefix(fd.Fix, "Keep it") {
		t.Errorf("with sync_replication_slots: %+v", fd)
	}

	t.Log("the slot fix names the setting with a value that invalidates no slot now, and the slot is named")
	s = saneStandby()
	s.Primary.Settings["max_slot_wal_keep_size"] = Setting{Value: "-1", Unit: "MB"}
	s.Primary.Slots[0].Name = `sb"1`
	s.Standby.Receiver.Slot, s.Primary.Walsenders[0].Slot = `sb"1`, `sb"1`
	s.Primary.Slots[0].RestartLSN = 0x100000000
	s.Primary.CurrentLSN = 0x100000000 + 3<<30 // retains 3 GiB
	fd = findingOf(t, standbySlotUnbounded, s)
	if !strings.Contains(fd.Found, `"sb""1"`) || !strings.Contains(fd.Found, "this standby streams from") || !strings.Contains(fd.Found, "3.2 GB") {
		t.Errorf("slot finding %q: want the slot named (quoted), as this standby's, with what it retains", fd.Found)
	}
	if got := texts(fd.Run); !slices.Equal(got, []string{"primary: ALTER SYSTEM SET max_slot_wal_keep_size = '6GB';", "primary: SELECT pg_reload_conf();"}) {
		t.Errorf("slot fix %q", got)
	}

	t.Log("remote_apply: the fix loosens synchronous_commit only, and the cost names replay_lag")
	s = saneStandby()
	s.Primary.Settings["synchronous_standby_names"] = Setting{Value: `FIRST 1 ("sb1", sb2)`}
	s.Primary.Settings["synchronous_commit"] = Setting{Value: "remote_apply"}
	s.Primary.Walsenders[0].SyncState = "sync"
	lag := 2.5
	s.Primary.Walsenders[0].ReplayLag = &lag
	fd = findingOf(t, standbySyncCommit, s)
	if !strings.Contains(fd.Found, "replay_lag 2.5 s") || !strings.Contains(fd.Found, "sync_state sync") {
		t.Errorf("sync finding %q: want the replay_lag commits wait on and the sync_state", fd.Found)
	}
	if got := texts(fd.Run); !slices.Equal(got, []string{"primary: ALTER SYSTEM SET synchronous_commit = 'on';", "primary: SELECT pg_reload_conf();"}) {
		t.Errorf("sync fix %q", got)
	}
	if fd := findingOf(t, standbyDelayUnbounded, func() Snapshots {
		s.Standby.Settings["max_standby_streaming_delay"] = Setting{Value: "-1", Unit: "ms"}
		return s
	}()); !strings.Contains(fd.Why, "remote_apply") || !strings.Contains(fd.Why, "streams now") {
		t.Errorf("delay finding %q: want the standby streaming and the primary's commits waiting on its replay", fd.Why)
	}

	t.Log("wal_compression: the share of page images and the write_lag, and the statement on the primary")
	s = saneStandby()
	s.Primary.Settings["wal_compression"] = Setting{Value: "off"}
	fd = findingOf(t, standbyWALCompression, s)
	if !strings.Contains(fd.Found, "100 full-page images in 1000 records") || !strings.Contains(fd.Found, "at most 41%") {
		t.Errorf("compression finding %q", fd.Found)
	}
	if got := texts(fd.Run); !slices.Equal(got, []string{"primary: ALTER SYSTEM SET wal_compression = 'on';", "primary: SELECT pg_reload_conf();"}) {
		t.Errorf("compression fix %q", got)
	}
}

func TestStandbyCheckStatuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		make   func() Snapshots
		check  CheckID
		status Status
		reason string
	}{
		{"a primary-side check without --primary is not checked", func() Snapshots { s := saneStandby(); s.Primary = nil; return s },
			CheckStandbySlotUnbounded, StatusNotChecked, "needs --primary"},
		{"a standby check without --standby is not checked", healthy, CheckStandbyDelayUnbounded, StatusNotChecked, "needs --standby"},
		{"a logical check on a standby-only run is not checked", saneStandby, CheckWALLevel, StatusNotChecked, "needs --publisher"},
		{"recovery_prefetch on 14 is not applicable", func() Snapshots {
			s := saneStandby()
			s.Standby.Version.Major = 14
			return s
		}, CheckStandbyRecoveryPrefetch, StatusNotApplicable, "new in 15"},
		{"the primary's unreadable slots make the slot check not checked", func() Snapshots {
			s := saneStandby()
			s.Primary.Unreadable = map[Section]string{PrimarySlots: "needs SELECT on pg_replication_slots (permission denied)"}
			return s
		}, CheckStandbySlotUnbounded, StatusNotChecked, "needs SELECT on pg_replication_slots"},
		{"a snapshot of a server not in recovery is not applicable", func() Snapshots {
			s := saneStandby()
			s.Standby.InRecovery = false
			return s
		}, CheckStandbyApplyDelay, StatusNotApplicable, "not in recovery"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range Run(c.make(), All) {
				if r.Check == string(c.check) {
					if r.Status != c.status || !strings.Contains(r.Reason, c.reason) {
						t.Errorf("%s: %s (%q), want %s containing %q", c.check, r.Status, r.Reason, c.status, c.reason)
					}
					return
				}
			}
			t.Fatalf("no result for %s", c.check)
		})
	}
}

func TestTheStandbysWalsenderIsFoundBySlotThenName(t *testing.T) {
	s := saneStandby()
	s.Primary.Walsenders = append(s.Primary.Walsenders, Walsender{PID: 99, ApplicationName: "sb1", State: "streaming"})
	if w, why := s.feed(); w == nil || w.PID != 88 {
		t.Fatalf("by slot: %+v %q, want pid 88", w, why)
	}
	s.Standby.Receiver.Slot, s.Standby.Settings["primary_slot_name"] = "", Setting{}
	if w, why := s.feed(); w != nil || !strings.Contains(why, "cannot tell which") {
		t.Fatalf("two walsenders named sb1 without a slot: %+v %q, want none", w, why)
	}
	s.Primary.Walsenders = s.Primary.Walsenders[1:]
	if w, _ := s.feed(); w == nil || w.PID != 99 {
		t.Fatalf("by name: %+v, want pid 99", w)
	}
	s.Standby.ConninfoAppName = ""
	if w, why := s.feed(); w != nil || !strings.Contains(why, "walreceiver") {
		t.Fatalf("without an application_name the receiver is walreceiver: %+v %q", w, why)
	}
	s.Standby.Settings["cluster_name"] = Setting{Value: "sb1"}
	if w, _ := s.feed(); w == nil {
		t.Fatalf("cluster_name names the receiver when primary_conninfo does not")
	}
}

func TestConninfoAppName(t *testing.T) {
	for in, want := range map[string]string{
		"host=a port=5432 user=rep application_name=sb1":              "sb1",
		"host=a application_name = 'my standby' user=rep":             "my standby",
		`host=a application_name='it\'s' user=rep`:                    "it's",
		"host=a user=rep password='x application_name=no'":            "",
		"postgresql://rep@a:5432/app?application_name=sb2&sslmode=no": "sb2",
		"host=a user=rep": "",
	} {
		if got := conninfoAppName(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestSyncStandbyNames(t *testing.T) {
	for _, c := range []struct {
		in     string
		method string
		num    int
		names  []string
	}{
		{"", "", 0, nil},
		{"sb1, sb2", "first", 1, []string{"sb1", "sb2"}},
		{"2 (sb1, sb2)", "first", 2, []string{"sb1", "sb2"}},
		{`FIRST 1 ("Sb 1", sb2)`, "first", 1, []string{"Sb 1", "sb2"}},
		{"ANY 2 (a,b,c)", "any", 2, []string{"a", "b", "c"}},
		{"*", "first", 1, []string{"*"}},
	} {
		m, n, names := syncStandbyNames(c.in)
		if m != c.method || n != c.num || !slices.Equal(names, c.names) {
			t.Errorf("%q: %s %d %q, want %s %d %q", c.in, m, n, names, c.method, c.num, c.names)
		}
	}
}

func TestStandbyOptions(t *testing.T) {
	if err := (Options{Standby: "host=sb"}).Validate(); err != nil {
		t.Errorf("--standby alone: %v", err)
	}
	if err := (Options{Publisher: "host=p", Primary: "host=p"}).Validate(); err == nil || !strings.Contains(err.Error(), "give --standby too") {
		t.Errorf("--primary without --standby: %v", err)
	}
}

func TestAStandbyOnlySnapshotRoundTripsAndRenders(t *testing.T) {
	s := saneStandby()
	s.Standby.Settings["max_standby_streaming_delay"] = Setting{Value: "-1", Unit: "ms"}
	s.Standby.ConninfoAppName = "sb1\n\x1b[31mred"
	s.Primary.Walsenders[0].ApplicationName = s.Standby.ConninfoAppName
	s.Primary.Settings["synchronous_standby_names"] = Setting{Value: "*"}
	s.Primary.Settings["synchronous_commit"] = Setting{Value: "remote_apply"}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadSnapshots(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	want := Run(s, All)
	if got := Run(back, All); !reflect.DeepEqual(got, want) {
		t.Errorf("the checks on the snapshots read back differ:\n%+v\n%+v", got, want)
	}
	rep := NewReport(back, Run(back, All))
	if rep.Standby == nil || rep.Primary == nil || !rep.Problems() {
		t.Fatalf("report %+v: want the standby and primary servers and a warning", rep)
	}
	for format := range Renderers {
		var out bytes.Buffer
		if err := Render(&out, rep, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "standby-delay-unbounded") || !strings.Contains(out.String(), "standby-sync-commit") || !strings.Contains(out.String(), "16.14") {
			t.Errorf("%s: the finding or the standby's version is missing", format)
		}
		if strings.Contains(out.String(), "\x1b") {
			t.Errorf("%s: a control character from an application_name reached the output", format)
		}
	}
	var text bytes.Buffer
	if err := Text(&text, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "standby     PostgreSQL 16.14, database app") || !strings.Contains(text.String(), "primary     PostgreSQL 16.14") {
		t.Errorf("text header:\n%s", text.String())
	}
}
