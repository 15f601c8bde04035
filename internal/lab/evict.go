package lab

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// evictEvery is how often the cache evictor drops the subscriber's data
// from the page cache.
const evictEvery = 100 * time.Millisecond

// cacheEvictor drops a server's table and index files from the page cache
// again and again: as on a host whose other work keeps taking the memory,
// every read of one of their pages that is not in shared_buffers goes to
// the disk. The catalogs stay cached, as a busy server's do.
type cacheEvictor struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startEvictor evicts files (paths under dataDir, with their segments and
// forks) every evictEvery until stopped.
func startEvictor(dataDir string, files []string) *cacheEvictor {
	ctx, cancel := context.WithCancel(context.Background())
	e := &cacheEvictor{cancel: cancel}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		t := time.NewTicker(evictEvery)
		defer t.Stop()
		for {
			for _, f := range files {
				all, _ := filepath.Glob(filepath.Join(dataDir, f) + "*")
				for _, g := range all {
					evictFile(g)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return e
}

// stop ends the evictor, if any.
func (e *cacheEvictor) stop() {
	if e != nil {
		e.cancel()
		e.wg.Wait()
	}
}

// evictFile flushes a file and drops it from the page cache.
func evictFile(path string) error {
	fd, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	if err := unix.Fdatasync(fd); err != nil {
		return fmt.Errorf("flush %s: %w", path, err)
	}
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("evict %s from the page cache: %w", path, err)
	}
	return nil
}

// hotFilesSQL lists the files of the lab's table and its indexes, relative
// to the data directory.
const hotFilesSQL = `SELECT string_agg(pg_relation_filepath(c.oid), ' ') FROM pg_class c
WHERE c.oid = 'hot'::regclass OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'hot'::regclass)`

// evictHotData starts an evictor of the subscriber's table and index files.
func (p *Pair) evictHotData(ctx context.Context) error {
	files, err := Query[string](ctx, p.Sub.ConnString(Database), hotFilesSQL)
	if err != nil {
		return fmt.Errorf("subscriber: %w", err)
	}
	p.evictor = startEvictor(p.Sub.DataDir, strings.Fields(files))
	return nil
}
