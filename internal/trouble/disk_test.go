package trouble

import (
	"math"
	"strings"
	"testing"

	"github.com/lagscope/lagscope/internal/sample"
)

// The stalled recording's slot with pg_wal's file system read: the free
// space over the net growth, or "more than the slot may still take" when
// max_slot_wal_keep_size caps it first.
func TestTheDiskHoldingPgWALFillsAtTheRetainedWALsGrowth(t *testing.T) {
	rec := load(t, "stalled-pg16-diag")
	rec.Version = 8
	free := int64(4 << 30)
	rec.Ticks[len(rec.Ticks)-1].Edit(sample.PublisherNode).WALDisk = &sample.DiskStat{FreeBytes: free, SizeBytes: 8 << 30}
	s := Of(rec, "lab_sub")
	if want := float64(free) / s.GrowthBps; math.Abs(s.DiskFullInS-want) > 0.01 || !strings.Contains(s.Text, "full in about") {
		t.Errorf("disk full in %.1f s (%q), want %.1f s", s.DiskFullInS, s.Text, want)
	}
	withKeep(rec, 1<<30) // safe_wal_size under the free space: the cap comes first
	if s := Of(rec, "lab_sub"); !strings.Contains(s.Text, "more than the slot may still take") {
		t.Errorf("capped below the free space: %q", s.Text)
	}
	rec.Ticks[len(rec.Ticks)-1].Edit(sample.PublisherNode).WALDisk = nil
	if s := Of(rec, "lab_sub"); s.DiskFreeBytes != -1 || s.DiskFullInS != -1 || strings.Contains(s.Text, "file system") {
		t.Errorf("not read: free %d, full in %.0f, %q; want unknown and unsaid", s.DiskFreeBytes, s.DiskFullInS, s.Text)
	}
}
