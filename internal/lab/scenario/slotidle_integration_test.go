package scenario

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// TestIntegrationTheIdleTimeoutForecastMeetsTheSlot makes the slot-idle
// state (PostgreSQL 18+: the subscription disabled, idle_replication_slot_timeout
// 45 s, checkpoint_timeout 30 s), diagnoses it for 10 s as a user would,
// then watches the slot until it is invalidated: that must happen after
// the forecast moment (inactive_since + the timeout) and no later than one
// checkpoint_timeout after it (the first checkpoint after invalidates it).
func TestIntegrationTheIdleTimeoutForecastMeetsTheSlot(t *testing.T) {
	s, err := Lookup("slot-idle", false)
	if err != nil {
		t.Fatal(err)
	}
	if v := labtest.Servers(t).Version; v.Major < s.MinMajor {
		t.Skipf("slot-idle uses %s: PostgreSQL %d+, this is %s", s.Needs, s.MinMajor, v)
	}
	o := integrationOptions(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	p, rep, rec := upAndDiagnose(ctx, t, s, o)
	if len(rep.Paths) != 1 || rep.Paths[0].Trouble == nil {
		t.Fatalf("paths %+v: want one with a time to trouble", rep.Paths)
	}
	path := rep.Paths[0]
	tr := path.Trouble
	if tr.IdleTimeoutS != 45 || tr.IdleInS <= 0 || tr.InactiveSince == nil {
		t.Fatalf("time to trouble %+v: want the 45 s idle timeout still to run", tr)
	}
	predicted := tr.At.Add(seconds(tr.IdleInS))

	conn, err := pgx.Connect(ctx, p.Pub.ConnString(lab.Database))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	const checkpointTimeout = 30 * time.Second
	var reason string
	for time.Now().Before(predicted.Add(checkpointTimeout + 15*time.Second)) {
		if err := conn.QueryRow(ctx, "SELECT coalesce(invalidation_reason, '') FROM pg_replication_slots WHERE slot_name = $1", path.Slot).Scan(&reason); err != nil {
			t.Fatal(err)
		}
		if reason != "" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	at := time.Now()
	t.Logf("PostgreSQL %s: forecast the idle timeout to run out %.1f s after %s (at %s), the slot was invalidated (%s) %.1f s after it; %s",
		rec.Server(sample.PublisherNode).Version, tr.IdleInS, tr.At.Format("15:04:05"), predicted.Format("15:04:05.0"), reason, at.Sub(predicted).Seconds(), tr.Text)
	switch {
	case reason != "idle_timeout":
		t.Fatalf("invalidation_reason %q %.0f s after the forecast, want idle_timeout within checkpoint_timeout", reason, at.Sub(predicted).Seconds())
	case at.Before(predicted.Add(-time.Second)):
		t.Errorf("invalidated %.1f s before the forecast moment", predicted.Sub(at).Seconds())
	case at.After(predicted.Add(checkpointTimeout + 2*time.Second)):
		t.Errorf("invalidated %.1f s after the forecast moment, more than checkpoint_timeout (30 s)", at.Sub(predicted).Seconds())
	}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
