package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/pgversion"
	"github.com/lagscope/lagscope/internal/units"
)

// CheckStandbyWALCompression is the ID of standbyWALCompression: its page is docs/checks/standby-wal-compression.md.
const CheckStandbyWALCompression CheckID = "standby-wal-compression"

// standbyWALCompression: with wal_compression off the primary sends
// full-page images uncompressed over the standby's link. check does not
// measure the link: the finding is informational, with the share of
// full-page images pg_stat_wal counts (14+) and the walsender's write_lag.
var standbyWALCompression = Check{
	ID:       CheckStandbyWALCompression,
	Title:    "full-page images cross the link compressed (wal_compression)",
	Severity: Info,
	Side:     StandbySide,
	Needs:    []Section{PrimarySettings},
	Applies:  standbyApplies,
	Run: func(s Snapshots) []Finding {
		p := s.Primary
		if p.Settings["wal_compression"].Value != "off" || p.Settings["full_page_writes"].Value != "on" {
			return nil // compressed already, or no full-page images to compress
		}
		found := "wal_compression = off on the primary (full_page_writes = on): the full-page image written after each checkpoint for a page's first change crosses the link to the standby uncompressed."
		if w := p.WAL; w != nil && w.Records > 0 && w.Bytes > 0 {
			block, ok := p.Settings.Bytes("block_size")
			if !ok || block <= 0 {
				block = 8192
			}
			share := min(1, float64(w.FPI*block)/float64(w.Bytes))
			found += fmt.Sprintf(" pg_stat_wal counts %d full-page images in %d records (%s of WAL) since its reset: at most %s of those bytes are page images.",
				w.FPI, w.Records, byteSize(w.Bytes), units.Percent(share))
		} else if !pgversion.StatWAL.On(p.Version.Major) {
			found += fmt.Sprintf(" (PostgreSQL %d has no pg_stat_wal: the share of page images is not known.)", p.Version.Major)
		}
		link := " lagscope check does not measure the link: lagscope diagnose --standby names a path the link limits."
		if w, _ := s.feed(); w != nil && w.WriteLag != nil {
			link = fmt.Sprintf(" The walsender to this standby reports write_lag %s (the primary's flush to the standby's write: the link and the receiver's write);", units.FormatSeconds(*w.WriteLag)) +
				" lagscope check does not measure the link itself: lagscope diagnose --standby names a path the link limits."
		}
		return []Finding{{
			Objects: []string{"setting wal_compression (primary)"},
			Found:   found,
			Why: "Where the link between primary and standby is slow, the standby receives WAL only as fast as the link carries it, " +
				"and full-page images are often most of the WAL after a checkpoint; compressed, they take a fraction of the bytes, " +
				"at some CPU on the primary for each image." + link,
			Fix: "If the link limits the standby, turn wal_compression on on the primary and reload it (15+ also takes lz4 or zstd " +
				"where the server was built with them).",
			Run: alterSystem(onPrimary, "wal_compression", "on", false),
		}}
	},
}
