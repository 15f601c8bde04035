package conflict

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/pgversion"
	"github.com/lagscope/lagscope/internal/sample"
)

// Meaning says, per conflict kind, what the apply worker did with the
// change (PostgreSQL 18's docs, "Conflicts" in "Logical Replication").
var Meaning = map[string]string{
	"insert_exists":             "an inserted row's key already existed on the subscriber: the apply worker stops with an error and retries the transaction",
	"update_origin_differs":     "updated rows were last changed by another origin: the update was applied over that change",
	"update_exists":             "an update's new key already existed on the subscriber: the apply worker stops with an error and retries",
	"update_missing":            "rows the publisher updated were missing on the subscriber: those updates were skipped",
	"delete_origin_differs":     "deleted rows were last changed by another origin: deleted anyway",
	"delete_missing":            "rows the publisher deleted were missing on the subscriber: those deletes were skipped",
	"multiple_unique_conflicts": "a row conflicted with several unique keys on the subscriber: the apply worker stops with an error and retries",
}

// Window is one subscription's conflicts over a window.
type Window struct {
	Subscription string `json:"subscription"`
	// Counted is whether the subscriber counts conflicts (18+).
	Counted bool `json:"counted"`
	// Rose is each counter's increase over the window, kinds that did not
	// rise left out; Total is their sum.
	Rose  map[string]int64 `json:"rose,omitempty"`
	Total int64            `json:"total"`
	// Text says it for a reader ("" when counted and none rose).
	Text string `json:"text,omitempty"`
}

// Of reads subscription sub's conflicts from the recording; nil when the
// recording predates conflict counters being read (version 8), or has no
// subscriber or no such subscription.
func Of(rec *sample.Recording, sub string) *Window {
	srv := rec.Server(sample.SubscriberNode)
	if rec.Version < 8 || srv == nil || sub == "" {
		return nil
	}
	first, last := ends(rec, sub)
	if first == nil {
		return nil
	}
	w := &Window{Subscription: sub}
	v, err := pgversion.Parse(srv.Version)
	if err == nil && v.Major < 18 || first.Conflicts == nil {
		w.Text = fmt.Sprintf("not counted before PostgreSQL 18 (this subscriber runs %s): an update or delete of a row missing there "+
			"is skipped silently; compare the tables' row counts on both sides to know (docs/conflicts.md).", srv.Version)
		return w
	}
	w.Counted = true
	var parts []string
	for _, k := range pg.ConflictKinds {
		if d := last.Conflicts[k] - first.Conflicts[k]; d > 0 {
			if w.Rose == nil {
				w.Rose = map[string]int64{}
			}
			w.Rose[k] = d
			w.Total += d
			parts = append(parts, fmt.Sprintf("%s %d (%s)", k, d, Meaning[k]))
		}
	}
	if w.Total > 0 {
		w.Text = fmt.Sprintf("%d %s in the window: %s. The subscriber's rows differ from the publisher's, whatever the replication speed: "+
			"the subscriber's log names each conflict's table and key (\"conflict detected on relation\").", w.Total, plural(w.Total), strings.Join(parts, "; "))
	}
	return w
}

// ends finds sub in the first and last ticks the subscriber answered.
func ends(rec *sample.Recording, sub string) (first, last *sample.Sub) {
	for i := range rec.Ticks {
		rd := rec.Ticks[i].Read(sample.SubscriberNode)
		if !rd.OK {
			continue
		}
		for j := range rd.Subs {
			if rd.Subs[j].Name == sub {
				if first == nil {
					first = &rd.Subs[j]
				}
				last = &rd.Subs[j]
			}
		}
	}
	return first, last
}

func plural(n int64) string {
	if n == 1 {
		return "conflict"
	}
	return "conflicts"
}
