package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"

	"github.com/lagscope/lagscope/internal/diagnose"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/model"
	"github.com/lagscope/lagscope/internal/report"
	"github.com/lagscope/lagscope/internal/sample"
)

// forecastBand is how far the forecast of when the slot's WAL stops being
// reserved may sit from when it does, as a share of the time to it (the
// issue's ±25%).
const forecastBand = 0.25

// TestIntegrationTheSlotForecastMeetsTheSlot makes the slot-filling state
// (a disabled subscription, a steady load, max_slot_wal_keep_size set),
// diagnoses it for 10 s as a user would, then watches the slot until its
// wal_status leaves reserved/extended: the report's forecast must be within
// forecastBand of when that happened.
//
// The model and safe_wal_size are the same from 13 on: make test runs it on
// one version (LAGSCOPE_TEST_ONCE=1); the runs on 15, 16 and 18 are in
// docs/trouble.md.
func TestIntegrationTheSlotForecastMeetsTheSlot(t *testing.T) {
	if os.Getenv("LAGSCOPE_TEST_ONCE") != "1" {
		t.Skip("runs on one PostgreSQL version: set LAGSCOPE_TEST_ONCE=1")
	}
	o := integrationOptions(t)
	s, err := Lookup("slot-filling", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	p, rep, rec := upAndDiagnose(ctx, t, s, o)
	if len(rep.Paths) != 1 {
		t.Fatalf("%d paths, want 1", len(rep.Paths))
	}
	path := rep.Paths[0]
	if path.Name != model.Stalled {
		t.Errorf("verdict %s, want %s (nothing is consumed)", path.Name, model.Stalled)
	}
	tr := path.Trouble
	if tr == nil || !tr.Growing || tr.UnreservedInS <= 0 || !strings.Contains(tr.Text, "unreserved") {
		t.Fatalf("time to trouble %+v: want a growing slot with a forecast", tr)
	}
	predicted := tr.At.Add(time.Duration(tr.UnreservedInS * float64(time.Second)))
	// lagscope runs on the publisher's host here: it read the free space
	// of pg_wal's file system as statfs gives it (within the WAL written
	// since, and other tenants' writes: 1 GB).
	var st unix.Statfs_t
	if err := unix.Statfs(filepath.Join(p.Pub.DataDir, "pg_wal"), &st); err != nil {
		t.Fatal(err)
	}
	if free := int64(st.Bavail) * int64(st.Bsize); tr.DiskFreeBytes <= 0 || tr.DiskFullInS <= 0 || math.Abs(float64(tr.DiskFreeBytes-free)) > 1e9 {
		t.Errorf("pg_wal's file system: %d bytes free, full in %.0f s; statfs says %d bytes free", tr.DiskFreeBytes, tr.DiskFullInS, free)
	}

	conn, err := pgx.Connect(ctx, p.Pub.ConnString(lab.Database))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	deadline := time.Now().Add(time.Duration(3*tr.UnreservedInS)*time.Second + 10*time.Second)
	var status string
	var rates []string // the WAL rate in 10 s steps while waiting
	var mark int64
	markAt := time.Now()
	for time.Now().Before(deadline) {
		var cur int64
		if err := conn.QueryRow(ctx, "SELECT coalesce(wal_status, ''), (pg_current_wal_lsn() - '0/0')::bigint FROM pg_replication_slots WHERE slot_name = $1", path.Slot).Scan(&status, &cur); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(markAt); mark == 0 || d >= 10*time.Second {
			if mark != 0 {
				rates = append(rates, fmt.Sprintf("%.2f", float64(cur-mark)/d.Seconds()/1e6))
			}
			mark, markAt = cur, time.Now()
		}
		if status == "unreserved" || status == "lost" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	at := time.Now()
	if status != "unreserved" && status != "lost" {
		t.Fatalf("wal_status still %q %.0f s after the forecast's %s", status, at.Sub(predicted).Seconds(), predicted.Format("15:04:05"))
	}
	actual := at.Sub(tr.At).Seconds()
	off := tr.UnreservedInS/actual - 1
	t.Logf("PostgreSQL %s: forecast unreserved %.1f s after %s, it was %s after %.1f s (%+.1f%%); WAL MB/s in 10 s steps since: %v; %s",
		rec.Server(sample.PublisherNode).Version, tr.UnreservedInS, tr.At.Format("15:04:05"), status, actual, 100*off, rates, tr.Text)
	if off < -forecastBand || off > forecastBand {
		t.Errorf("forecast %.1f s, measured %.1f s (%+.0f%%): want within ±%.0f%%", tr.UnreservedInS, actual, 100*off, 100*forecastBand)
	}
}

// upAndDiagnose makes scenario s's state and diagnoses it for 10 s as a
// user would, saving the samples under $LAGSCOPE_RECORD_DIR when set; the
// pair and its load end with the test.
func upAndDiagnose(ctx context.Context, t *testing.T, s Scenario, o lab.RunOptions) (*lab.Pair, report.Report, *sample.Recording) {
	t.Helper()
	p, load, err := lab.Up(ctx, s.Recipe, o)
	if err != nil {
		t.Fatalf("lab up: %v", err)
	}
	t.Cleanup(func() { load.Stop(); p.Close() })
	rep, rec, err := diagnose.Run(ctx, diagnose.Options{Publisher: p.Pub.ConnString(lab.Database), Subscriber: p.Sub.ConnString(lab.Database),
		Duration: 10 * time.Second, ProbeHz: 20, Tick: time.Second})
	if err != nil {
		t.Fatalf("diagnose: %v", err)
	}
	if dir := os.Getenv("LAGSCOPE_RECORD_DIR"); dir != "" && rec != nil {
		b, _ := json.Marshal(rec)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("diag-%s-pg%s-%d.json", s.Name, rec.Server(sample.PublisherNode).Version, time.Now().Unix())), b, 0o644)
	}
	return p, rep, rec
}
