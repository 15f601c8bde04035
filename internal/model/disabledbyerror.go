package model

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// errCounts are a subscription's error counters at the window's end
// (Input.ApplyErrorCount, Input.Conflicts).
type errCounts struct {
	count     int64
	conflicts map[string]int64
}

// errorKinds are the conflict kinds (18+) that stop the apply worker with
// an error, with what the data fix does about each; the other kinds are
// skipped or applied, logged but not stopped on.
var errorKinds = []struct{ kind, fix string }{
	{"insert_exists", "delete or change the subscriber's row whose key the publisher inserts (insert_exists: the error's DETAIL line names the key and its index)"},
	{"update_exists", "change the subscriber's row whose key the publisher's update would duplicate (update_exists: the DETAIL line names it)"},
	{"multiple_unique_conflicts", "delete or change the subscriber's rows that hold the keys the publisher's row takes (multiple_unique_conflicts: the DETAIL lines name each)"},
}

// stopKinds are the counted conflict kinds that stop the apply worker,
// with their counts, in errorKinds' order ("" none counted).
func stopKinds(conflicts map[string]int64) string {
	var out []string
	for _, k := range errorKinds {
		if n := conflicts[k.kind]; n > 0 {
			out = append(out, fmt.Sprintf("%s %d", k.kind, n))
		}
	}
	return strings.Join(out, ", ")
}

// disabledByError is the cause of a path whose subscription is disabled
// with apply errors counted: disable_on_error (15+) disables it at its
// first apply error, and enabling it alone retries the same transaction.
func disabledByError(in Input) string {
	c := fmt.Sprintf("subscription %s is disabled after an apply error: apply_error_count is %d", quote.Id(in.Subscription), in.ApplyErrorCount)
	if k := stopKinds(in.Conflicts); k != "" {
		c += ", the conflicts that stop applying " + k
	}
	return c + " (disable_on_error disables a subscription at its first apply error, or it was disabled by hand after them); enabled alone, it fails again at the same transaction: the error's fix comes first"
}

// disabledByErrorHelps are the remedies of a subscription disabled after
// an apply error, the error's first: find it in the subscriber's log (with
// the counters' statement), skip its transaction or fix its data, then
// enable the subscription. lagscope does not read the log, so the skip's
// LSN is not known: the advice says where it is, and prints no statement
// with a made-up one.
func disabledByErrorHelps(v Verdict) []Advice {
	sub := v.d.sub
	find := Advice{KeyFindApplyError, fmt.Sprintf("find the error first, in the subscriber's log: an ERROR line from the logical replication apply worker for subscription %s (a duplicate key, a missing table or column, a permission; on 18 a conflict=<kind> line), followed by a CONTEXT line that reads \"processing remote data for replication origin ... in transaction <xid>, finished at <LSN>\" (and, with disable_on_error, \"subscription ... has been disabled because of an error\"): that LSN is the failing transaction's; the counters say how often it failed", quote.Id(sub)),
		[]quote.Statement{quote.SQL("SELECT * FROM pg_stat_subscription_stats WHERE subname = %L;", sub).OnServer("subscriber")}, Figures{"apply_error_count": float64(v.d.errs.count)}}
	fix := "or, to keep its changes, fix what the error names instead (a duplicate key: the subscriber's row; a missing table or column: create it on the subscriber; a permission: grant it to the subscription's owner)"
	for _, k := range errorKinds {
		if v.d.errs.conflicts[k.kind] > 0 {
			fix = "or, to keep its changes, " + k.fix
			break
		}
	}
	skip := Advice{KeySkipFailedTxn, fmt.Sprintf("then skip that transaction with subscription %s's SKIP option (15+; lsn = the finish LSN of that CONTEXT line, which lagscope cannot read: no statement is printed with a guessed one), losing its changes on the subscriber; %s", quote.Id(sub), fix), nil, nil}
	enable := Advice{KeyEnableAfterFix, "then enable the subscription: it resumes after the skipped or fixed transaction (enabled before, it fails again at the same transaction)",
		[]quote.Statement{quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", sub).OnServer("subscriber")}, nil}
	return []Advice{find, skip, enable}
}
