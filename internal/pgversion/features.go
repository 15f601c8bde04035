package pgversion

// Feature is a capability of logical replication that both servers of a
// pair must have: the subscriber runs it and the publisher speaks the
// protocol version it needs. Each feature's version rule is written here
// once, for the checks (package audit) and the decisions (package model)
// alike.
type Feature struct {
	// Name is the feature as a sentence names it ("streaming = parallel").
	Name string
	// Since is the first major version with it, on both sides.
	Since int
}

// The features whose versions a check or a remedy depends on.
var (
	// Streaming of in-progress transactions (streaming = on): 14+.
	Streaming = Feature{Name: "streaming", Since: 14}
	// ParallelApply is streaming = parallel: 16+ on both sides (the
	// publisher's protocol version 4 as well as the subscriber's parallel
	// apply workers).
	ParallelApply = Feature{Name: "streaming = parallel", Since: 16}

	// The physical standby's (one server: On). StatWAL is pg_stat_wal
	// (wal_records, wal_fpi, wal_bytes): 14+. RecoveryPrefetch is
	// recovery_prefetch and pg_stat_recovery_prefetch: 15+.
	// IdleSlotTimeout is idle_replication_slot_timeout: 18+.
	StatWAL          = Feature{Name: "pg_stat_wal", Since: 14}
	RecoveryPrefetch = Feature{Name: "recovery_prefetch", Since: 15}
	IdleSlotTimeout  = Feature{Name: "idle_replication_slot_timeout", Since: 18}
)

// On reports whether one server of major version major has the feature (0,
// not known, does not rule it out).
func (f Feature) On(major int) bool { return f.OnBoth(major, 0) }

// OnBoth reports whether a pair whose servers run majors pub and sub has
// the feature: a side whose major is not known (0) does not rule it out.
func (f Feature) OnBoth(pub, sub int) bool {
	return (pub == 0 || pub >= f.Since) && (sub == 0 || sub >= f.Since)
}
