package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/lagscope/lagscope/internal/lab"
	"github.com/lagscope/lagscope/internal/recorder"
	"github.com/lagscope/lagscope/internal/sample"
	"github.com/lagscope/lagscope/internal/testkit/labpair"
	"github.com/lagscope/lagscope/internal/testkit/labtest"
)

// A recorder of a draining pair whose subscriber stops for a while, then
// SIGKILLed: every segment reads back, up to the last step it wrote (at
// most a step and the kill's moment before the kill), the stopped
// subscriber is a gap saying why, and diagnose gives a verdict on a
// window of it.
func TestIntegrationAKilledRecorderReadsBackWithTheServersGapMarked(t *testing.T) {
	labtest.Once(t)
	bin := buildLagscope(t)
	p := labpair.Up(t, "apply-bound")
	root := t.TempDir()
	const step = 2 * time.Second
	cmd := exec.Command(bin, "record", "--name", "orders", "--dir", root, "--step", step.String(), "--segment", "6s",
		"--publisher", p.Pub.ConnString(lab.Database), "--subscriber", p.Sub.ConnString(lab.Database))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	dir := filepath.Join(root, "orders")
	waitRecorded(t, dir, 8*time.Second, 40*time.Second)

	stopped := time.Now()
	if err := p.Sub.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(6 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Sub.StartAgain(ctx); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	_, last := waitRecorded(t, dir, 0, 40*time.Second)
	for time.Since(restarted) < 40*time.Second {
		if _, l, err := recorder.Span(dir); err == nil && l.After(restarted.Add(6*time.Second)) {
			last = l
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	// Killed mid-step, perhaps mid-write.
	time.Sleep(1300 * time.Millisecond)
	killed := time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	first, last, err := recorder.Span(dir)
	if err != nil {
		t.Fatalf("the killed recorder's recording does not read: %v\n%s", err, out.String())
	}
	t.Logf("recorded %s to %s; killed %.1f s after the last step written", first.Format("15:04:05.0"), last.Format("15:04:05.0"), killed.Sub(last).Seconds())
	if lost := killed.Sub(last); lost > step+3*time.Second {
		t.Errorf("the kill lost %.1f s, want at most the step in progress (%s) and its pause", lost.Seconds(), step)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.jsonl.gz"))
	if len(segs) < 3 {
		t.Errorf("%d segments over %.0f s of 6-s segments", len(segs), last.Sub(first).Seconds())
	}
	rec, err := recorder.Read(dir, first, last.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Validate(); err != nil {
		t.Fatalf("the recording read back does not validate: %v", err)
	}
	var subGap *sample.Gap
	for i, g := range rec.Gaps {
		t.Logf("gap %s %s-%s: %s", g.Side, g.From.Format("15:04:05.0"), g.To.Format("15:04:05.0"), g.Cause)
		if g.Side == sample.Subscriber && g.From.Before(restarted) && g.To.After(stopped) {
			subGap = &rec.Gaps[i]
		}
	}
	if subGap == nil {
		t.Fatalf("no subscriber gap over its stop (%s to %s)", stopped.Format("15:04:05.0"), restarted.Format("15:04:05.0"))
	}
	if !strings.Contains(subGap.Cause, "not sampled") {
		t.Errorf("the subscriber's gap says %q: want why it was not sampled", subGap.Cause)
	}
	// Ticks cover the recorded time outside the gaps: one a second.
	covered := last.Sub(first).Seconds() - subGap.To.Sub(subGap.From).Seconds()
	if n := float64(len(rec.Ticks)); n < 0.8*covered {
		t.Errorf("%d ticks over %.0f s recorded outside the gap", len(rec.Ticks), covered)
	}
	// A window before the stop gets a verdict; one inside the gap says so.
	res := exec.Command(bin, "diagnose", "--from-recording", root, "--between",
		first.UTC().Format(time.RFC3339Nano)+","+stopped.UTC().Format(time.RFC3339Nano))
	b, _ := res.CombinedOutput()
	if !strings.Contains(string(b), "VERDICT") {
		t.Errorf("diagnose on the recording before the stop:\n%s", b)
	}
	t.Logf("diagnose --from-recording before the stop: %s", lineWith(string(b), "VERDICT"))
}

// waitRecorded waits until the recording in dir spans at least span, and
// returns its range.
func waitRecorded(t *testing.T, dir string, span, limit time.Duration) (time.Time, time.Time) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		if f, l, err := recorder.Span(dir); err == nil && l.Sub(f) >= span {
			return f, l
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("the recording in %s did not span %s within %s", dir, span, limit)
	return time.Time{}, time.Time{}
}

func lineWith(s, with string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, with) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// An exporter recording to a small file system that fills up stops
// recording with one log line and lagscope_recorder_up 0, and keeps
// serving the pair's series.
func TestIntegrationAFullFileSystemStopsTheRecordingNotTheExporter(t *testing.T) {
	labtest.Once(t)
	bin := buildLagscope(t)
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s): the test needs a file system it can fill", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	// Fill it but for about 40 kB: a few steps' worth.
	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for {
		var st syscall.Statfs_t
		if err := syscall.Statfs(mnt, &st); err != nil {
			t.Fatal(err)
		}
		free := int64(st.Bavail) * int64(st.Bsize)
		if free <= 40<<10 {
			break
		}
		n := min(int64(len(buf)), free-(40<<10))
		if _, err := filler.Write(buf[:n]); err != nil {
			break
		}
	}
	filler.Close()

	p := labpair.Up(t, "apply-bound")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "exporter", "--name", "orders", "--listen", addr, "--window", "6s", "--step", "2s", "--record", mnt,
		"--publisher", p.Pub.ConnString(lab.Database), "--subscriber", p.Sub.ConnString(lab.Database))
	var log syncBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	start := time.Now()
	var stoppedAt float64
	for {
		m := scrapeAll(addr)
		if m["lagscope_recorder_up"] == 0 && m["present:lagscope_recorder_up"] == 1 {
			stoppedAt = m["lagscope_steps_total"]
			t.Logf("recording stopped after %.1f s, %g steps; %g bytes written", time.Since(start).Seconds(), stoppedAt, m["lagscope_recorder_written_bytes_total"])
			break
		}
		if time.Since(start) > 90*time.Second {
			t.Fatalf("the recording never stopped on the full file system; metrics %v; log:\n%s", m, log.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	// The exporter goes on: more ok steps, both servers up.
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := scrapeAll(addr)
		if m["lagscope_steps_total"] >= stoppedAt+2 && m["lagscope_up"] == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the exporter stopped stepping after the recording stopped: %v; log:\n%s", m, log.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	if n := strings.Count(log.String(), "recording stopped"); n != 1 {
		t.Errorf("%d log lines say the recording stopped, want 1:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "no space left") {
		t.Errorf("the log line does not name the full file system:\n%s", log.String())
	}
	// What was written before reads back.
	if f, l, err := recorder.Span(filepath.Join(mnt, "orders")); err != nil {
		t.Errorf("the recording written before the file system filled does not read: %v", err)
	} else {
		t.Logf("recorded before the file system filled: %s to %s", f.Format("15:04:05"), l.Format("15:04:05"))
	}
}

// scrapeAll sums each metric of /metrics over its series whose pair is
// orders (ok steps only for lagscope_steps_total), with "present:NAME" 1
// for each metric present.
func scrapeAll(addr string) map[string]float64 {
	out := map[string]float64{}
	c := http.Client{Timeout: 5 * time.Second}
	r, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return out
	}
	defer r.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(r.Body)
	if err != nil {
		return out
	}
	for name, mf := range mfs {
		vec, err := expfmt.ExtractSamples(&expfmt.DecodeOptions{Timestamp: model.Now()}, mf)
		if err != nil {
			continue
		}
		for _, s := range vec {
			if s.Metric["pair"] != "orders" || (name == "lagscope_steps_total" && s.Metric["result"] != "ok") {
				continue
			}
			out[name] += float64(s.Value)
			out["present:"+name] = 1
		}
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for a process's output and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The exporter's recording of a draining pair gives, over the exporter's
// last window, the verdict the exporter served live for it, and the
// timeline names that verdict's incident.
func TestIntegrationARecordedWindowGetsTheVerdictTheExporterServedLive(t *testing.T) {
	labtest.Once(t)
	bin := buildLagscope(t)
	p := labpair.Up(t, "apply-bound")
	root := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	const window = 10 * time.Second
	cmd := exec.Command(bin, "exporter", "--name", "orders", "--listen", addr, "--window", window.String(), "--step", "5s", "--record", root,
		"--publisher", p.Pub.ConnString(lab.Database), "--subscriber", p.Sub.ConnString(lab.Database))
	var log syncBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Three full windows, then the live verdict and the end of its window.
	var live string
	var end, span float64
	for start := time.Now(); ; time.Sleep(time.Second) {
		m := scrapeAll(addr)
		if m["lagscope_steps_total"] >= 6 {
			v, e, w, ok := liveVerdict(addr)
			if ok {
				live, end, span = v, e, w
				break
			}
		}
		if time.Since(start) > 90*time.Second {
			t.Fatalf("the exporter made no 6 steps in 90 s: %v\n%s", m, log.String())
		}
	}
	// The recording holds that step once it is written (just after the
	// update the metrics show).
	for start := time.Now(); scrapeAll(addr)["lagscope_recorder_last_step_timestamp_seconds"] < end; time.Sleep(200 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the step behind the live verdict was not recorded within 10 s:\n%s", log.String())
		}
	}
	to := time.Unix(0, int64(end*1e9))
	from := to.Add(-time.Duration(span * 1e9))
	out, _ := exec.Command(bin, "diagnose", "--from-recording", root, "--between",
		from.UTC().Format(time.RFC3339Nano)+","+to.Add(time.Millisecond).UTC().Format(time.RFC3339Nano)).CombinedOutput()
	got := strings.Fields(lineWith(string(out), "VERDICT"))
	if len(got) < 2 || got[1] != live {
		t.Fatalf("the recorded window %s-%s: %q; the exporter served %s live:\n%s", from.Format("15:04:05.0"), to.Format("15:04:05.0"), lineWith(string(out), "VERDICT"), live, out)
	}
	t.Logf("live %s; recorded window %s-%s: %s", live, from.Format("15:04:05.0"), to.Format("15:04:05.0"), lineWith(string(out), "VERDICT"))
	tl, _ := exec.Command(bin, "timeline", "--from-recording", root, "--window", window.String()).CombinedOutput()
	switch {
	case live == "caught-up" && !strings.Contains(string(tl), "caught up") && !strings.Contains(string(tl), "no incident"):
		t.Errorf("the exporter served caught-up live, and the timeline has no incident ending caught up:\n%s", tl)
	case live != "caught-up" && !strings.Contains(string(tl), live):
		t.Errorf("the timeline does not name the %s incident:\n%s", live, tl)
	}
	t.Logf("timeline:\n%s", tl)
	// The HTML page of the same recording: the chart, and the live
	// verdict's incident with its report in the page.
	page, err := exec.Command(bin, "timeline", "--from-recording", root, "--window", window.String(), "--format", "html").Output()
	switch {
	case err != nil || !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.Contains(string(page), "Lag and the limiting stage"):
		t.Errorf("timeline --format html: %v\n%.400s", err, page)
	case live != "caught-up" && (!strings.Contains(string(page), `id="incident-1"`) || !strings.Contains(string(page), `<div class="name">`+live+` `)):
		t.Errorf("the HTML timeline has no incident with a report of %s", live)
	}
}

// liveVerdict is the exporter's current verdict of pair orders, when the
// step behind it ended (Unix seconds) and the length of its window.
func liveVerdict(addr string) (string, float64, float64, bool) {
	c := http.Client{Timeout: 5 * time.Second}
	r, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		return "", 0, 0, false
	}
	defer r.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(r.Body)
	if err != nil {
		return "", 0, 0, false
	}
	verdict, end, span := "", 0.0, 0.0
	for _, name := range []string{"lagscope_verdict", "lagscope_last_step_timestamp_seconds", "lagscope_window_seconds"} {
		mf, ok := mfs[name]
		if !ok {
			return "", 0, 0, false
		}
		vec, _ := expfmt.ExtractSamples(&expfmt.DecodeOptions{Timestamp: model.Now()}, mf)
		for _, s := range vec {
			switch {
			case name == "lagscope_verdict" && s.Value == 1:
				verdict = string(s.Metric["verdict"])
			case name == "lagscope_last_step_timestamp_seconds":
				end = float64(s.Value)
			case name == "lagscope_window_seconds":
				span = float64(s.Value)
			}
		}
	}
	return verdict, end, span, verdict != "" && end > 0 && span > 0
}
