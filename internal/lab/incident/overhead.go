package incident

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/proc"
)

// Overhead is what the recorder cost over the run: its sessions' CPU on
// each server as a share of one core (the sessions with application_name
// lagscope when it started, before any live diagnose; read from /proc),
// and this process's resident memory after each stretch.
type Overhead struct {
	Seconds     float64 `json:"seconds"`
	PubCPUShare float64 `json:"publisher_sessions_cpu_share"`
	SubCPUShare float64 `json:"subscriber_sessions_cpu_share"`
	PubSessions int     `json:"publisher_sessions"`
	SubSessions int     `json:"subscriber_sessions"`
	// Lost counts the recorder's sessions gone before the end (their CPU
	// until then is not counted).
	Lost  int     `json:"sessions_lost,omitempty"`
	RSSMB []int64 `json:"process_rss_mb"`
}

// Recording is the recording's size on disk, and per hour of the run.
type Recording struct {
	Dir          string  `json:"dir"`
	Bytes        int64   `json:"bytes"`
	BytesPerHour float64 `json:"bytes_per_hour"`
}

// overheadWatch holds the recorder's sessions and their CPU at the start.
type overheadWatch struct {
	fs       proc.FS
	start    time.Time
	pub, sub map[int]time.Duration
	rss      []int64
}

// watchOverhead finds the recorder's sessions on both servers and reads
// their CPU so far.
func watchOverhead(ctx context.Context, p *lab.Pair) (*overheadWatch, error) {
	fs, err := proc.NewFS("")
	if err != nil {
		return nil, err
	}
	w := &overheadWatch{fs: fs, start: time.Now()}
	if w.pub, err = sessions(ctx, fs, p.Pub.ConnString(lab.Database)); err != nil {
		return nil, err
	}
	if w.sub, err = sessions(ctx, fs, p.Sub.ConnString(lab.Database)); err != nil {
		return nil, err
	}
	return w, nil
}

// sessions maps lagscope's sessions on a server to their CPU so far.
func sessions(ctx context.Context, fs proc.FS, dsn string) (map[int]time.Duration, error) {
	conn, err := pgx.Connect(ctx, dsn+" application_name=lagscope-lab")
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = 'lagscope'")
	if err != nil {
		return nil, err
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, err
	}
	out := map[int]time.Duration{}
	for _, pid := range pids {
		if c, ok := cpu(fs, int(pid)); ok {
			out[int(pid)] = c
		}
	}
	return out, nil
}

// cpu is a process's time on a CPU so far.
func cpu(fs proc.FS, pid int) (time.Duration, bool) {
	ps, err := fs.Process(pid)
	if err != nil {
		return 0, false
	}
	if ps.HasSchedstat {
		return ps.Running, true
	}
	return ps.CPU, true
}

// memory notes this process's resident memory.
func (r *recorderRun) memory() {
	if r.ov == nil {
		return
	}
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return
	}
	var size, res int64
	if _, err := fmt.Sscan(string(b), &size, &res); err == nil {
		r.ov.rss = append(r.ov.rss, res*int64(os.Getpagesize())>>20)
	}
}

// overhead is the recorder's sessions' CPU since watchOverhead.
func (r *recorderRun) overhead(ctx context.Context) Overhead {
	w := r.ov
	o := Overhead{Seconds: time.Since(w.start).Seconds(), PubSessions: len(w.pub), SubSessions: len(w.sub), RSSMB: w.rss}
	share := func(m map[int]time.Duration) float64 {
		var used time.Duration
		for pid, c0 := range m {
			c1, ok := cpu(w.fs, pid)
			if !ok {
				o.Lost++
				continue
			}
			used += c1 - c0
		}
		return used.Seconds() / o.Seconds
	}
	o.PubCPUShare, o.SubCPUShare = share(w.pub), share(w.sub)
	return o
}

// measureRecording is the recording's size on disk.
func measureRecording(dir string, over time.Duration) (Recording, error) {
	rc := Recording{Dir: dir}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			rc.Bytes += info.Size()
		}
		return err
	})
	if over > 0 {
		rc.BytesPerHour = float64(rc.Bytes) / over.Hours()
	}
	return rc, err
}
