package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lagscope/lagscope/internal/testkit/labtest"
	"go.yaml.in/yaml/v3"
)

// repoRoot is the checkout this test runs in.
func repoRoot(t *testing.T) string {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func version(t *testing.T, root string) string {
	b, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// stdout runs a command in dir and returns its standard output; its
// standard error is shown when it fails.
func stdout(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// TestIntegrationReleaseArtifacts builds the release once (this machine's
// platform only: the other two binaries are the same code cross-compiled)
// and uses each artifact as an operator would.
func TestIntegrationReleaseArtifacts(t *testing.T) {
	labtest.Once(t)
	root := repoRoot(t)
	v := version(t, root)
	out := t.TempDir()
	start := time.Now()
	run(t, root, []string{"DIST_DIR=" + out, "DIST_TARGETS=linux/" + runtime.GOARCH}, "bash", "scripts/dist.sh")
	t.Logf("make dist (linux/%s): %s", runtime.GOARCH, time.Since(start).Round(time.Second))

	t.Run("SHA256SUMS is accepted by sha256sum -c and covers every artifact", func(t *testing.T) {
		sums := run(t, out, nil, "sha256sum", "-c", "SHA256SUMS")
		for _, a := range []string{"lagscope_" + v + "_linux_" + runtime.GOARCH + ".tar.gz", "lagscope_" + v + "_oci.tar", "lagscope-exporter-" + v + ".tgz"} {
			if !strings.Contains(sums, a+": OK") {
				t.Errorf("%s not checked:\n%s", a, sums)
			}
		}
		debs, _ := filepath.Glob(filepath.Join(out, "*.deb"))
		rpms, _ := filepath.Glob(filepath.Join(out, "*.rpm"))
		if len(debs) != 1 || len(rpms) != 1 {
			t.Errorf("want one .deb and one .rpm, got %v %v", debs, rpms)
		}
	})
	t.Run("the tarball holds the binary, LICENSE, README, man pages and completions", func(t *testing.T) {
		names := tarNames(t, filepath.Join(out, "lagscope_"+v+"_linux_"+runtime.GOARCH+".tar.gz"))
		dir := "lagscope_" + v + "_linux_" + runtime.GOARCH + "/"
		for _, f := range []string{"lagscope", "LICENSE", "README.md", "CHANGELOG.md", "man/lagscope.1", "man/lagscope-diagnose.1", "completions/lagscope.bash", "completions/_lagscope", "completions/lagscope.fish"} {
			if !names[dir+f] {
				t.Errorf("no %s in the tarball", dir+f)
			}
		}
	})
	t.Run("the deb installs, runs, shows its man page and removes cleanly", func(t *testing.T) { testDeb(t, out, v) })
	t.Run("the image's binary runs from its unpacked layers as user 65532", func(t *testing.T) { testImage(t, out, v) })
	t.Run("the chart lints and renders the alert rules of docs/prometheus", func(t *testing.T) { testChart(t, root, out, v) })
	t.Logf("total: %s", time.Since(start).Round(time.Second))
}

// tarNames lists the files of a .tar.gz.
func tarNames(t *testing.T, path string) map[string]bool {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names[h.Name] = true
	}
}

func testDeb(t *testing.T, out, v string) {
	if _, err := exec.LookPath("dpkg"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs dpkg and root (a Debian machine, as CI's)")
	}
	if exec.Command("dpkg", "-s", "lagscope").Run() == nil {
		t.Fatal("lagscope is already installed here: the test would remove it; dpkg -P lagscope first")
	}
	debs, _ := filepath.Glob(filepath.Join(out, "*.deb"))
	if len(debs) != 1 {
		t.Fatalf("no .deb in %s", out)
	}
	installed := false
	t.Cleanup(func() {
		if installed {
			exec.Command("dpkg", "-P", "lagscope").Run()
		}
	})
	run(t, "", nil, "dpkg", "-i", debs[0])
	installed = true
	if got := run(t, "", nil, "/usr/bin/lagscope", "--version"); !isRelease(got, v) {
		t.Errorf("lagscope --version: %q, want lagscope v%s", got, v)
	}
	if _, err := exec.LookPath("man"); err != nil {
		t.Error("man is missing: scripts/install-deps.sh installs man-db")
	} else {
		page := run(t, "", []string{"MANPAGER=cat", "MANWIDTH=100"}, "man", "lagscope-diagnose")
		if !strings.Contains(page, "lagscope diagnose") {
			t.Errorf("man lagscope-diagnose:\n%.500s", page)
		}
		if page := run(t, "", []string{"MANPAGER=cat"}, "man", "lagscope"); !strings.Contains(page, "lagscope") {
			t.Errorf("man lagscope:\n%.500s", page)
		}
	}
	if _, err := exec.LookPath("systemd-analyze"); err == nil {
		// The unit's own checks (Documentation=man:... is found now).
		got := run(t, "", nil, "systemd-analyze", "verify", "/usr/lib/systemd/system/lagscope-exporter.service")
		if strings.Contains(got, "lagscope-exporter") {
			t.Errorf("systemd-analyze verify:\n%s", got)
		}
		sec := run(t, "", nil, "systemd-analyze", "security", "--offline=yes", "/usr/lib/systemd/system/lagscope-exporter.service")
		t.Logf("systemd-analyze security: %s", lastLine(sec))
	} else {
		t.Log("no systemd-analyze here: the unit was not verified")
	}
	if got := run(t, "", nil, "getent", "passwd", "lagscope"); !strings.Contains(got, "/usr/sbin/nologin") {
		t.Errorf("the lagscope user: %q", got)
	}
	if got := run(t, "", nil, "stat", "-c", "%U:%G %a", "/etc/lagscope/exporter.yml", "/etc/lagscope/exporter.env"); got != "root:lagscope 640\nroot:lagscope 640\n" {
		t.Errorf("config files: %q", got)
	}
	for _, f := range []string{"/usr/share/lagscope/grafana/lagscope.json", "/usr/share/lagscope/prometheus/alerts.yml", "/usr/share/bash-completion/completions/lagscope", "/usr/share/man/man1/lagscope-exporter.1.gz"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("installed: %v", err)
		}
	}

	run(t, "", nil, "dpkg", "-r", "lagscope")
	for _, gone := range []string{"/usr/bin/lagscope", "/usr/share/lagscope", "/usr/lib/systemd/system/lagscope-exporter.service"} {
		if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after dpkg -r, %s is left (%v)", gone, err)
		}
	}
	if exec.Command("getent", "passwd", "lagscope").Run() != nil {
		t.Error("dpkg -r removed the lagscope user: only purge should")
	}
	if _, err := os.Stat("/etc/lagscope/exporter.yml"); err != nil {
		t.Errorf("dpkg -r removed the configuration: %v", err)
	}
	run(t, "", nil, "dpkg", "-P", "lagscope")
	installed = false
	if _, err := os.Stat("/etc/lagscope"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after dpkg -P, /etc/lagscope is left (%v)", err)
	}
	if exec.Command("getent", "passwd", "lagscope").Run() == nil {
		t.Error("after dpkg -P, the lagscope user is left")
	}
}

// isRelease reports whether a --version line names release v ("lagscope
// v0.1.0 (commit ...), built with ..." or, built without VCS stamps,
// "lagscope v0.1.0, built with ...").
func isRelease(line, v string) bool {
	rest, ok := strings.CutPrefix(line, "lagscope v"+v)
	return ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, ","))
}

func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return ls[len(ls)-1]
}

// ociIndex and ociManifest are the parts of an OCI layout the test reads.
type ociIndex struct {
	Manifests []struct {
		Digest   string `json:"digest"`
		Platform struct {
			Architecture string `json:"architecture"`
			OS           string `json:"os"`
		} `json:"platform"`
	} `json:"manifests"`
}

type ociManifest struct {
	Config struct {
		Digest string `json:"digest"`
	} `json:"config"`
	Layers []struct {
		Digest string `json:"digest"`
	} `json:"layers"`
}

func testImage(t *testing.T, out, v string) {
	layout := t.TempDir()
	run(t, "", nil, "tar", "-xf", filepath.Join(out, "lagscope_"+v+"_oci.tar"), "-C", layout)
	blob := func(digest string) []byte {
		b, err := os.ReadFile(filepath.Join(layout, "blobs", strings.Replace(digest, ":", "/", 1)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var idx ociIndex
	if err := json.Unmarshal(readFile(t, filepath.Join(layout, "index.json")), &idx); err != nil {
		t.Fatal(err)
	}
	var m ociManifest
	for _, d := range idx.Manifests {
		if d.Platform.OS == "linux" && d.Platform.Architecture == runtime.GOARCH {
			if err := json.Unmarshal(blob(d.Digest), &m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(m.Layers) == 0 {
		t.Fatalf("no linux/%s image in the index: %+v", runtime.GOARCH, idx)
	}
	var cfg struct {
		Config struct {
			User       string   `json:"User"`
			Entrypoint []string `json:"Entrypoint"`
		} `json:"config"`
	}
	if err := json.Unmarshal(blob(m.Config.Digest), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Config.User != "65532:65532" {
		t.Errorf("the image runs as %q, want 65532:65532", cfg.Config.User)
	}
	rootfs := t.TempDir()
	var files []string
	for _, l := range m.Layers {
		p := filepath.Join(layout, "blobs", strings.Replace(l.Digest, ":", "/", 1))
		files = append(files, strings.Fields(run(t, "", nil, "tar", "-tf", p))...)
		run(t, "", nil, "tar", "-xf", p, "-C", rootfs)
	}
	if strings.Join(files, " ") != "usr/ usr/bin/ usr/bin/lagscope" {
		t.Errorf("the image holds more than the binary: %v", files)
	}
	bin := filepath.Join(rootfs, cfg.Config.Entrypoint[0])
	if got := run(t, "", nil, bin, "--version"); !isRelease(got, v) {
		t.Errorf("%s --version: %q", bin, got)
	}
	if got := run(t, "", nil, "file", bin); !strings.Contains(got, "statically linked") {
		t.Errorf("not static: %s", got)
	}
}

func readFile(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func alertsOf(t *testing.T, groups []map[string]any) map[string]string {
	got := map[string]string{}
	for _, g := range groups {
		rules, _ := g["rules"].([]any)
		for _, r := range rules {
			m, _ := r.(map[string]any)
			name, _ := m["alert"].(string)
			expr, _ := m["expr"].(string)
			if name != "" {
				got[name] = strings.TrimSpace(expr)
			}
		}
	}
	return got
}

func testChart(t *testing.T, root, out, v string) {
	// Its standard output alone: building helm the first time writes go's
	// progress to standard error, which is not the path.
	helm := strings.TrimSpace(stdout(t, root, "bash", "scripts/get-helm.sh"))
	chart := filepath.Join(out, "lagscope-exporter-"+v+".tgz")
	run(t, "", nil, helm, "lint", "--strict", chart, "--set", "prometheusRule.enabled=true,serviceMonitor.enabled=true")
	rendered := run(t, "", nil, helm, "template", "lagscope", chart, "--set", "prometheusRule.enabled=true,serviceMonitor.enabled=true")
	kinds := map[string]int{}
	var rule map[string]any
	dec := yaml.NewDecoder(strings.NewReader(rendered))
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("helm template's output: %v", err)
		}
		if doc == nil {
			continue
		}
		k, _ := doc["kind"].(string)
		kinds[k]++
		if k == "PrometheusRule" {
			rule = doc
		}
	}
	for _, k := range []string{"Deployment", "Service", "ServiceMonitor", "PrometheusRule", "ConfigMap"} {
		if kinds[k] == 0 {
			t.Errorf("helm template renders no %s: %v", k, kinds)
		}
	}
	if rule == nil {
		return
	}
	var docs struct {
		Groups []map[string]any `yaml:"groups"`
	}
	if err := yaml.Unmarshal(readFile(t, filepath.Join(root, "docs", "prometheus", "alerts.yml")), &docs); err != nil {
		t.Fatal(err)
	}
	spec, _ := rule["spec"].(map[string]any)
	var groups []map[string]any
	for _, g := range spec["groups"].([]any) {
		groups = append(groups, g.(map[string]any))
	}
	want, got := alertsOf(t, docs.Groups), alertsOf(t, groups)
	if len(want) == 0 {
		t.Fatal("docs/prometheus/alerts.yml has no alerts")
	}
	for name, expr := range want {
		if got[name] != expr {
			t.Errorf("alert %s: the chart's expression\n%s\nwant docs/prometheus's\n%s", name, got[name], expr)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the chart has %d alerts, docs/prometheus %d", len(got), len(want))
	}
	if !bytes.Contains([]byte(rendered), []byte(`{{ $labels.pair }}`)) {
		t.Error("the alerts' annotations lost their Prometheus templates in Helm")
	}
}
