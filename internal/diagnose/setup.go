package diagnose

import (
	"context"
	"encoding/json"

	"github.com/lagscope/lagscope/internal/audit"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/pg"
	"github.com/lagscope/lagscope/internal/sample"
)

// ReadSetup reads the pair's setup as 'lagscope check' does (versions,
// subscription options, replica identities, indexes, triggers, ...), once
// (diagnose: after its window; watch and the exporter: at each
// preflight), within a bound of its own: the raw snapshots, or why
// they could not be read (a failed read is "not read", never "none").
//
// The read uses the sessions kept in ss (nil: it connects), and keeps them
// open: a session whose read failed is closed.
func ReadSetup(ctx context.Context, o Options, ss *Sessions) (json.RawMessage, string) {
	ctx, cancel := pg.WithAnswerTimeout(ctx, 4*pg.ReadTimeout)
	defer cancel()
	ao := audit.Options{Publisher: o.Publisher, Subscriber: o.Subscriber}
	if ss != nil {
		ao.Session = ss.peek
	}
	snaps, err := audit.Collect(ctx, ao)
	if err != nil {
		return nil, pg.Redact(pg.Unanswered(ctx, err).Error())
	}
	b, err := json.Marshal(snaps)
	if err != nil {
		return nil, err.Error()
	}
	return b, ""
}

// setupRead is the recording's setup as the model reads it: decoded and
// checked (setupOf), or why not, with the versions the samples recorded.
func setupRead(rec *sample.Recording) model.SetupRead {
	snaps, results := setupOf(rec)
	r := model.SetupRead{Snaps: snaps, Results: results, NotRead: rec.SetupError, PubMajor: rec.Server(sample.PublisherNode).Major}
	if rec.Server(sample.SubscriberNode) != nil {
		r.SubMajor = rec.Server(sample.SubscriberNode).Major
	}
	return r
}

// setupOf decodes a recording's setup (nil when it has none, or when it
// does not read or holds names no server writes: audit.Snapshots.Validate).
func setupOf(rec *sample.Recording) (*audit.Snapshots, []audit.Result) {
	if len(rec.Setup) == 0 {
		return nil, nil
	}
	var s audit.Snapshots
	if err := json.Unmarshal(rec.Setup, &s); err != nil {
		rec.SetupError = "the saved setup does not read: " + err.Error()
		return nil, nil
	}
	if err := s.Validate(); err != nil {
		// A recording read from a file: names no server could have written.
		rec.SetupError = "the saved setup is refused: " + err.Error()
		return nil, nil
	}
	return &s, audit.Run(s, audit.All)
}
