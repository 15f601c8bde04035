package sample

// Roles of the replication processes lagscope samples, as recorded in
// ProcStat.Role: part of the recording format, so they never change.
// Every package that speaks of a process's role uses these names; the
// exporter derives its role label values from them.
const (
	// RoleWalsender is a publisher's walsender serving a logical slot.
	RoleWalsender = "walsender"
	// RoleApply is a subscription's leader apply worker.
	RoleApply = "apply"
	// RoleParallel is a parallel apply worker (16+, streaming = parallel),
	// which applies the large transactions its leader hands it.
	RoleParallel = "parallel apply"
	// RoleTablesync is a tablesync worker, copying a table's initial data
	// and catching it up.
	RoleTablesync = "tablesync"
)

// roleSQL is role as an SQL string literal (no role holds a quote).
func roleSQL(role string) string { return "'" + role + "'" }
