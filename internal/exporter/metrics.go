package exporter

import "github.com/prometheus/client_golang/prometheus"

// The exported metrics. Path series carry pair, slot and subscription
// (empty when only the publisher is watched), and standby (empty for a
// logical path, the standby's name for a physical one: physical.go); per-process series carry the
// process's role (walsender, apply_leader, parallel_apply, tablesync).
// Every label value read from a server passes labelValue (valid UTF-8, two
// names never one series); tablesync slots share slot=TablesyncSlots.
var (
	pathLabels = []string{"pair", "slot", "subscription", "standby"}

	descUp = prometheus.NewDesc("lagscope_up",
		"Whether the last step reached the server (1) or not (0).", []string{"pair", "server"}, nil)
	descBuild = prometheus.NewDesc("lagscope_build_info",
		"lagscope's version and the Go version it was built with.", []string{"version", "goversion"}, nil)
	descPathInfo = prometheus.NewDesc("lagscope_path_info",
		"Versions and process ids of a watched path (1); pids change when a process restarts.",
		append(pathLabels, "publisher_version", "subscriber_version", "walsender_pid", "apply_pid"), nil)
	descBottleneck = prometheus.NewDesc("lagscope_bottleneck",
		"The stage that limits the path over the last window (1) and every other stage (0); stage=\"none\" when none does.",
		append(pathLabels, "stage"), nil)
	descVerdict = prometheus.NewDesc("lagscope_verdict",
		"The verdict over the last window (1) and every other verdict (0); see docs/verdicts/.",
		append(pathLabels, "verdict"), nil)
	descConfidence = prometheus.NewDesc("lagscope_verdict_confidence_ratio",
		"How sure the verdict is, 0..1, from the measured margins.", pathLabels, nil)
	descHeadroom = prometheus.NewDesc("lagscope_next_limit_headroom_ratio",
		"How many times today's rate the path could run once the limit is relieved, until the next stage saturates.",
		append(pathLabels, "stage"), nil)
	descUtil = prometheus.NewDesc("lagscope_stage_utilisation_ratio",
		"Share of the window a stage spent on its own work (on a CPU, waiting for one, or on its own I/O and locks); 1 = saturated.",
		append(pathLabels, "stage"), nil)
	descLag = prometheus.NewDesc("lagscope_lag_bytes",
		"Unconfirmed WAL of the path at the window's end, by part: not_sent, sent_not_flushed, flushed_not_confirmed.",
		append(pathLabels, "part"), nil)
	descLagSeconds = prometheus.NewDesc("lagscope_lag_seconds",
		"The lag in time: the larger of the backlog over the drain rate and flush_lag (absent when unknown).", pathLabels, nil)
	descRetained = prometheus.NewDesc("lagscope_slot_retained_bytes",
		"WAL the slot holds back on the publisher: current position minus restart_lsn.", []string{"pair", "slot"}, nil)
	descGrowth = prometheus.NewDesc("lagscope_slot_retained_growth_bytes_per_second",
		"Net growth of the WAL the slot retains over the last window: WAL written minus what the slot released (confirmed); negative while it drains.",
		[]string{"pair", "slot"}, nil)
	descSafeWAL = prometheus.NewDesc("lagscope_slot_safe_wal_bytes",
		"safe_wal_size: WAL the publisher can write before the slot's WAL is no longer reserved (absent without max_slot_wal_keep_size).",
		[]string{"pair", "slot"}, nil)
	descUnreservedIn = prometheus.NewDesc("lagscope_slot_unreserved_in_seconds",
		"Forecast: seconds until wal_status becomes unreserved (the checkpoint after invalidates the slot), safe_wal_size over the last window's net growth; 0 when already; absent when not growing or not capped.",
		[]string{"pair", "slot"}, nil)
	descIdleIn = prometheus.NewDesc("lagscope_slot_idle_timeout_in_seconds",
		"Forecast (PostgreSQL 18+): seconds until an inactive slot has been inactive longer than idle_replication_slot_timeout (the first checkpoint after invalidates it); 0 when already; absent while the slot is active or the timeout is off.",
		[]string{"pair", "slot"}, nil)
	descWALDiskFree = prometheus.NewDesc("lagscope_wal_disk_free_bytes",
		"Free space of the file system holding the publisher's pg_wal (statfs; only where the exporter runs on the publisher's host and may read its data directory).",
		[]string{"pair"}, nil)
	descDiskFullIn = prometheus.NewDesc("lagscope_slot_disk_full_in_seconds",
		"Forecast: seconds until the file system holding pg_wal is full at the slot's net growth of retained WAL over the last window; 0 when full; absent when not growing or not read.",
		[]string{"pair", "slot"}, nil)
	descConflicts = prometheus.NewDesc("lagscope_subscription_conflicts_total",
		"PostgreSQL 18+: pg_stat_subscription_stats' conflict counters (kind: insert_exists, update_missing, delete_missing, ...; the *_origin_differs kinds need track_commit_timestamp): rows that differ between the sides.",
		[]string{"pair", "subscription", "kind"}, nil)
	descLimit = prometheus.NewDesc("lagscope_replication_limit",
		"A setting that caps a replication resource (publisher: max_replication_slots, max_wal_senders; subscriber: max_logical_replication_workers, max_active_replication_origins on 18+ or max_replication_slots before, and per subscription max_sync_workers_per_subscription, max_parallel_apply_workers_per_subscription); see docs/checks/limits-in-use.md.",
		[]string{"pair", "server", "setting", "subscription"}, nil)
	descLimitUsed = prometheus.NewDesc("lagscope_replication_limit_in_use",
		"How much of lagscope_replication_limit was in use when the setup was last read (every 5 minutes, and after each reconnect): slots, walsenders, workers, replication origins.",
		[]string{"pair", "server", "setting", "subscription"}, nil)
	descReadErrors = prometheus.NewDesc("lagscope_read_errors_total",
		"Best-effort reads that failed (source: blockers, copy_progress, cpu_burst, wal_disk, apply_work): what they would have said is unknown.",
		[]string{"pair", "server", "source"}, nil)
	descGenerated = prometheus.NewDesc("lagscope_wal_generated_bytes_total",
		"WAL the publisher wrote while watched.", []string{"pair"}, nil)
	descDecoded = prometheus.NewDesc("lagscope_wal_decoded_bytes_total",
		"WAL the slot's walsender decoded and sent (sent_lsn) while watched.", []string{"pair", "slot"}, nil)
	descConfirmed = prometheus.NewDesc("lagscope_wal_confirmed_bytes_total",
		"WAL the consumer confirmed (confirmed_flush_lsn) while watched.", []string{"pair", "slot"}, nil)
	descTablesync = prometheus.NewDesc("lagscope_tablesync_slots",
		"Tablesync slots (pg_<suboid>_sync_<relid>_<sysid>: one per table a subscription copies) by subscription and verdict: initial-sync while copying, stalled when left over or failed. Their per-slot series are exported once, under slot=\"pg_*_sync_*\" (the largest retained WAL and growth, the soonest forecast, summed counters).",
		[]string{"pair", "subscription", "verdict"}, nil)
	descCPU = prometheus.NewDesc("lagscope_cpu_seconds_total",
		"CPU time of the path's processes by role (/proc of local servers only).", []string{"pair", "slot", "role"}, nil)
	descRunq = prometheus.NewDesc("lagscope_runqueue_seconds_total",
		"Time the path's processes were runnable but waited for a CPU, by role (/proc of local servers only).", []string{"pair", "slot", "role"}, nil)
	descWaits = prometheus.NewDesc("lagscope_wait_event_probes_total",
		"Wait-event observations of the path's processes by role, wait_event_type and wait_event (CPU/CPU: none, on a CPU or runnable).",
		[]string{"pair", "slot", "role", "wait_event_type", "wait_event"}, nil)
	descSteps = prometheus.NewDesc("lagscope_steps_total",
		"Sampling steps of the pair by result (ok, error).", []string{"pair", "result"}, nil)
	descUpdated = prometheus.NewDesc("lagscope_last_step_timestamp_seconds",
		"When the pair's last step ended (Unix time).", []string{"pair"}, nil)
	descWindow = prometheus.NewDesc("lagscope_window_seconds",
		"Length of the window behind the pair's current verdict.", []string{"pair"}, nil)
)

var allDescs = append([]*prometheus.Desc{descUp, descBuild, descPathInfo, descBottleneck, descVerdict, descConfidence,
	descHeadroom, descUtil, descLag, descLagSeconds, descRetained, descGrowth, descSafeWAL, descUnreservedIn, descIdleIn, descWALDiskFree, descDiskFullIn, descConflicts, descLimit, descLimitUsed, descReadErrors, descGenerated, descDecoded, descConfirmed, descTablesync,
	descCPU, descRunq, descWaits, descSteps, descUpdated, descWindow}, standbyDescs...)
