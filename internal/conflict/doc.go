// Package conflict reads a window's replication conflicts: how much each of
// pg_stat_subscription_stats' conflict counters (PostgreSQL 18+) rose while
// lagscope sampled, and what that says about the subscriber's data. A
// conflict means the sides' rows differ, whatever the pair's speed. It is
// pure: it takes a recording and returns figures and a sentence.
package conflict
