package sample

import (
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/pgversion"
)

// TestStandbySettingsInMilliseconds checks the settings a standby's read
// holds as pg_settings gives them: times in their unit turned into
// milliseconds, -1 (wait forever) kept, and a value that is not a number
// refused.
func TestStandbySettingsInMilliseconds(t *testing.T) {
	var s StandbySettings
	for _, r := range [][3]string{
		{"recovery_min_apply_delay", "300000", "ms"},
		{"max_standby_streaming_delay", "-1", "ms"},
		{"max_standby_archive_delay", "30000", "ms"},
		{"wal_receiver_status_interval", "10", "s"},
		{"hot_standby_feedback", "on", ""},
		{"recovery_prefetch", "try", ""},
		{"maintenance_io_concurrency", "10", ""},
	} {
		if err := s.set(r[0], r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	want := StandbySettings{MinApplyDelayMS: 300000, MaxStreamingDelayMS: -1, MaxArchiveDelayMS: 30000, ReceiverStatusInterval: 10000,
		HotStandbyFeedback: true, RecoveryPrefetch: "try", MaintenanceIOConc: 10}
	if s != want {
		t.Errorf("settings %+v, want %+v", s, want)
	}
	if err := s.set("max_standby_streaming_delay", "30s", "ms"); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("a setting that is not a number: %v, want a one-line error", err)
	}
	if err := s.set("recovery_min_apply_delay", "5", "kB"); err == nil {
		t.Errorf("a time in kB read without an error")
	}
}

// TestRecoveryConflictWaitsPerVersion checks that the startup process's
// waits are told apart per version: a snapshot, lock or buffer-pin
// conflict, and the waits that are not one (paused, delayed, waiting for
// WAL, on a CPU).
func TestRecoveryConflictWaitsPerVersion(t *testing.T) {
	cases := []struct {
		major      int
		typ, event string
		want       string
	}{
		{13, "IPC", "RecoveryConflictSnapshot", holdsSnapshot},
		{15, "IPC", "RecoveryConflictSnapshot", holdsSnapshot},
		{18, "IPC", "RecoveryConflictSnapshot", holdsSnapshot},
		{16, "IPC", "RecoveryConflictTablespace", holdsTablespace},
		{15, "Lock", "relation", holdsLock},
		{18, "Lock", "object", holdsLock},
		{15, "BufferPin", "BufferPin", holdsBufferPin},
		{18, "BufferPin", "BufferPin", holdsBufferPin},
		{19, "Buffer", "BufferPin", holdsBufferPin},
		{18, "Buffer", "BufferPin", ""},
		{15, "IPC", "RecoveryPause", ""},
		{18, "Timeout", "RecoveryApplyDelay", ""},
		{18, "Activity", "RecoveryWalStream", ""},
		{15, "IO", "DataFileRead", ""},
		{15, "", "", ""},
	}
	for _, c := range cases {
		if got := recoveryConflict(pgversion.Version{Major: c.major}, c.typ, c.event); got != c.want {
			t.Errorf("%d %s:%s: %q, want %q", c.major, c.typ, c.event, got, c.want)
		}
	}
}

// TestStandbyReadsPerVersion checks the version-dependent parts of a
// standby's read: the pause state (14+'s function, 13's boolean) and the
// conflict counters (active_logicalslot 16+).
func TestStandbyReadsPerVersion(t *testing.T) {
	if q := standbyPositionsSQL(pgversion.Version{Major: 13}); !strings.Contains(q, "pg_is_wal_replay_paused()") || strings.Contains(q, "pause_state") {
		t.Errorf("13 reads the pause state with %s", q)
	}
	if q := standbyPositionsSQL(pgversion.Version{Major: 15}); !strings.Contains(q, "pg_get_wal_replay_pause_state()") {
		t.Errorf("15 reads the pause state with %s", q)
	}
	for major, n := range map[int]int{15: 5, 16: 6, 18: 6} {
		kinds := standbyConflictKinds(pgversion.Version{Major: major})
		if len(kinds) != n || strings.Count(conflictsSQL(kinds), "confl_") != n {
			t.Errorf("%d: conflict kinds %v, want %d columns", major, kinds, n)
		}
	}
}
