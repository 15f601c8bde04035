package pg

// ConflictKinds are the conflict counters of pg_stat_subscription_stats
// (PostgreSQL 18+), each a column confl_<kind>: what the apply worker met
// that the publisher's row did not expect. The *_origin_differs kinds are
// counted only with track_commit_timestamp on the subscriber.
var ConflictKinds = []string{"insert_exists", "update_origin_differs", "update_exists", "update_missing",
	"delete_origin_differs", "delete_missing", "multiple_unique_conflicts"}
