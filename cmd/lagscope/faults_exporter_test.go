package main

import (
	"bytes"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// faultExporter is the real exporter binary watching the fault matrix's
// pair through lagscope's links, as monitorRole.
type faultExporter struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	log  bytes.Buffer
}

// The exporter's window and step in the fault matrix, and how long a scrape
// may take.
const (
	exporterWindow = 6 * time.Second
	exporterStep   = 2 * time.Second
	scrapeTimeout  = 5 * time.Second
)

// metricWant is a series the exporter must serve: name with labels (and
// pair="faults") at value.
type metricWant struct {
	name   string
	labels map[string]string
	value  float64
}

func (m *metricWant) String() string {
	ls := slices.Sorted(maps.Keys(m.labels))
	for i, k := range ls {
		ls[i] = k + "=" + m.labels[k]
	}
	return fmt.Sprintf("%s{%s}=%g", m.name, strings.Join(ls, ","), m.value)
}

func startFaultExporter(t *testing.T, bin string, e *faultEnv) *faultExporter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	x := &faultExporter{addr: ln.Addr().String()}
	ln.Close()
	x.cmd = exec.Command(bin, "exporter", "--name", "faults", "--publisher", e.pubDSN(), "--subscriber", e.subDSN(),
		"--listen", x.addr, "--window", exporterWindow.String(), "--step", exporterStep.String())
	x.cmd.Stdout, x.cmd.Stderr = x, x
	if err := x.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.cmd.Process.Kill() })
	return x
}

// Write collects the exporter's log.
func (x *faultExporter) Write(b []byte) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.log.Write(b)
}

func (x *faultExporter) logText() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.log.String()
}

// scrape reads /metrics within scrapeTimeout: the pair "faults"'s series
// by name, each as its labels and value.
func (x *faultExporter) scrape() (map[string][]*model.Sample, error) {
	c := http.Client{Timeout: scrapeTimeout}
	r, err := c.Get("http://" + x.addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer r.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r.Body)
	if err != nil {
		return nil, err
	}
	out := map[string][]*model.Sample{}
	for name, mf := range mfs {
		vec, err := expfmt.ExtractSamples(&expfmt.DecodeOptions{Timestamp: model.Now()}, mf)
		if err != nil {
			return nil, err
		}
		for _, s := range vec {
			if s.Metric["pair"] == "faults" || s.Metric["pair"] == "" {
				out[name] = append(out[name], s)
			}
		}
	}
	return out, nil
}

// value1 is the first series of m.name whose labels hold m.labels.
func (m *metricWant) value1(series map[string][]*model.Sample) (float64, bool) {
	for _, s := range series[m.name] {
		ok := true
		for k, v := range m.labels {
			ok = ok && string(s.Metric[model.LabelName(k)]) == v
		}
		if ok {
			return float64(s.Value), true
		}
	}
	return 0, false
}

// check scrapes until want holds (at most two windows), failing the test
// when a scrape does not answer within scrapeTimeout or want never holds,
// and returns what the exporter showed for the matrix's table.
func (x *faultExporter) check(t *testing.T, want *metricWant) string {
	t.Helper()
	start := time.Now()
	for {
		series, err := x.scrape()
		if err != nil {
			t.Errorf("the exporter did not answer a scrape within %s: %v", scrapeTimeout, err)
			return "no answer"
		}
		if strings.Contains(x.logText(), "panic") {
			t.Fatalf("the exporter panicked:\n%s", x.logText())
		}
		if want == nil {
			return "answers; " + verdictOf(series)
		}
		v, ok := want.value1(series)
		if ok && v == want.value {
			return fmt.Sprintf("%s after %.1f s; %s", want, time.Since(start).Seconds(), verdictOf(series))
		}
		if time.Since(start) > 2*exporterWindow+scrapeTimeout {
			t.Errorf("the exporter never showed %s within %s (last %g, present %v); %s; log:\n%s",
				want, time.Since(start).Round(100*time.Millisecond), v, ok, verdictOf(series), x.logText())
			return "not shown"
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// verdictOf names the exporter's current verdict series and up values.
func verdictOf(series map[string][]*model.Sample) string {
	var parts []string
	for _, s := range series["lagscope_up"] {
		parts = append(parts, fmt.Sprintf("up{%s}=%g", s.Metric["server"], float64(s.Value)))
	}
	for _, s := range series["lagscope_verdict"] {
		if s.Value == 1 {
			parts = append(parts, "verdict "+string(s.Metric["verdict"]))
		}
	}
	return strings.Join(parts, " ")
}

// untilUp waits until the exporter reaches both servers and has made an ok
// step since (at most 40 s).
func (x *faultExporter) untilUp(t *testing.T) {
	t.Helper()
	okSteps := &metricWant{name: "lagscope_steps_total", labels: map[string]string{"result": "ok"}}
	start, base := time.Now(), -1.0
	for time.Since(start) < 40*time.Second {
		series, err := x.scrape()
		if err == nil {
			pub, _ := (&metricWant{name: "lagscope_up", labels: map[string]string{"server": "publisher"}}).value1(series)
			sub, _ := (&metricWant{name: "lagscope_up", labels: map[string]string{"server": "subscriber"}}).value1(series)
			ok, _ := okSteps.value1(series)
			if pub == 1 && sub == 1 {
				if base < 0 {
					base = ok
				} else if ok > base {
					t.Logf("the exporter reaches both servers and steps after %.1f s", time.Since(start).Seconds())
					return
				}
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("the exporter did not reach both servers and step within 40 s; log:\n%s", x.logText())
}

// stop interrupts the exporter, which must exit 0 within 10 s.
func (x *faultExporter) stop(t *testing.T) {
	t.Helper()
	x.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- x.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the exporter exited with %v after SIGINT; log:\n%s", err, x.logText())
		}
	case <-time.After(10 * time.Second):
		t.Errorf("the exporter did not exit within 10 s of SIGINT")
	}
}
