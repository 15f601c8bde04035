package sample

// Session is a server backend as pg_stat_activity shows it: who it is and
// what it is doing at one tick. Blocker and OpenXact embed it, and so does
// the classifier's blocker (through measure.Blocker); each keeps its own
// transaction age and statement, whose JSON differs (always written in a
// recording, left out when zero in a report) and which follow the session's
// fields in each. The fields other than PID are empty when the sampling role
// cannot see them (no pg_read_all_stats).
type Session struct {
	PID     int    `json:"pid"`
	AppName string `json:"application_name,omitempty"`
	User    string `json:"user,omitempty"`
	// BackendType is pg_stat_activity.backend_type ("client backend", ...);
	// empty in an OpenXact, which lists client backends only.
	BackendType string `json:"backend_type,omitempty"`
	// State is pg_stat_activity.state ("idle in transaction", "active", ...).
	State string `json:"state,omitempty"`
}
