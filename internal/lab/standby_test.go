package lab

import (
	"strings"
	"testing"
)

// The standby streams through its link on its slot under its name, with
// hot_standby on and feedback off unless asked; the settings it is given
// are quoted, the ones it is not given stay the server's defaults.
func TestStandbySettings(t *testing.T) {
	s := StandbyOptions{}.settings("/lab/standby-link", 5433)
	if got := s["primary_conninfo"]; got != "'host=/lab/standby-link port=5433 user=postgres application_name="+StandbyApp+"'" {
		t.Errorf("primary_conninfo = %s", got)
	}
	if s["primary_slot_name"] != "'"+PhysicalSlot+"'" || s["hot_standby"] != "on" || s["hot_standby_feedback"] != "off" {
		t.Errorf("settings %v", s)
	}
	for _, name := range []string{"max_standby_streaming_delay", "recovery_min_apply_delay", "shared_buffers"} {
		if _, set := s[name]; set {
			t.Errorf("%s set without being asked: %v", name, s)
		}
	}
	s = StandbyOptions{HotStandbyFeedback: true, MaxStandbyStreamingDelay: "-1", RecoveryMinApplyDelay: "30s", SharedBuffers: "16MB"}.settings("/l", 1)
	want := map[string]string{"hot_standby_feedback": "on", "max_standby_streaming_delay": "'-1'", "recovery_min_apply_delay": "'30s'", "shared_buffers": "'16MB'"}
	for k, v := range want {
		if s[k] != v {
			t.Errorf("%s = %q, want %q", k, s[k], v)
		}
	}
	if !strings.Contains(s["primary_conninfo"], "host=/l port=1 ") {
		t.Errorf("primary_conninfo = %s", s["primary_conninfo"])
	}
}
