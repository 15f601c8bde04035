package trouble

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/units"
)

// disk fills the forecast of when the file system holding pg_wal is full:
// its free space at the window's last read over the retained WAL's net
// growth (the rest of pg_wal is recycled at checkpoints, so the slot's
// growth is what the directory gains).
func disk(s *Slot, rec *sample.Recording) {
	var d *sample.DiskStat
	for i := range rec.Ticks {
		if t := rec.Ticks[i].Read(sample.PublisherNode).WALDisk; t != nil {
			d = t
		}
	}
	if d == nil {
		return
	}
	s.DiskFreeBytes = d.FreeBytes
	switch {
	case d.FreeBytes <= 0:
		s.DiskFullInS = 0
	case s.Growing:
		s.DiskFullInS = float64(d.FreeBytes) / s.GrowthBps
	}
}

// diskText says the disk forecast ("" when pg_wal's file system was not
// read).
func diskText(s *Slot) string {
	switch {
	case s.DiskFreeBytes < 0:
		return ""
	case s.DiskFullInS == 0:
		return " The file system holding pg_wal is full."
	case s.DiskFullInS < 0:
		return fmt.Sprintf(" The file system holding pg_wal has %s free.", units.FormatBytes(float64(s.DiskFreeBytes)))
	case s.UnreservedInS >= 0 && s.UnreservedInS < s.DiskFullInS:
		return fmt.Sprintf(" The file system holding pg_wal has %s free, more than the slot may still take (it would be full in about %s at this growth).",
			units.FormatBytes(float64(s.DiskFreeBytes)), units.FormatSeconds(s.DiskFullInS))
	}
	return fmt.Sprintf(" The file system holding pg_wal has %s free: at this growth it is full in about %s, at %s, and the publisher shuts down (PANIC: no space left on device).",
		units.FormatBytes(float64(s.DiskFreeBytes)), units.FormatSeconds(s.DiskFullInS), clock(s.At, s.DiskFullInS))
}
