package recorder

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// retain removes the oldest closed segments while they are older than
// RetainAge (their last time, or where it is not known the next segment's
// start) or the segments take more than RetainSize; the open segment is
// never removed (retain runs between segments).
func (w *Writer) retain() error {
	now := w.o.Now()
	var total int64
	for _, s := range w.idx.Segments {
		total += s.Bytes
	}
	drop := 0
	for drop < len(w.idx.Segments) {
		s := w.idx.Segments[drop]
		last := s.Last
		if last.IsZero() && drop+1 < len(w.idx.Segments) {
			last, _ = segStart(w.idx.Segments[drop+1].File)
		}
		old := w.o.RetainAge > 0 && !last.IsZero() && now.Sub(last) > w.o.RetainAge
		big := w.o.RetainSize > 0 && total > w.o.RetainSize
		if !old && !big {
			break
		}
		if err := os.Remove(filepath.Join(w.o.Dir, s.File)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		total -= s.Bytes
		drop++
	}
	if drop > 0 {
		w.idx.Segments = append([]segEntry(nil), w.idx.Segments[drop:]...)
	}
	w.refreshDisk()
	return nil
}
