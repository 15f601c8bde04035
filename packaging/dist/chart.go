package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// chartName is the exporter's Helm chart (packaging/helm/<chartName>).
const chartName = "lagscope-exporter"

// writeChart stages the chart in STAGE/chart/lagscope-exporter with its
// version and appVersion set to the release's and files/ holding the alert
// rules and dashboard of docs/ (so the PrometheusRule and the dashboard
// ConfigMap are the same as docs/), and packages it as
// lagscope-exporter-V.tgz, as 'helm package' lays a chart out.
func writeChart(b Build) error {
	src := filepath.Join(b.Root, "packaging", "helm", chartName)
	stage := filepath.Join(b.Stage, "chart", chartName)
	var es []entry
	err := filepath.Walk(src, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if rel == "Chart.yaml" {
			data = setChartVersion(data, b.Version)
		}
		es = append(es, entry{Name: filepath.ToSlash(rel), Data: data, Mode: 0o644})
		return nil
	})
	if err != nil {
		return err
	}
	for name, from := range map[string]string{
		"files/alerts.yml":    filepath.Join(b.Root, "docs", "prometheus", "alerts.yml"),
		"files/lagscope.json": filepath.Join(b.Root, "docs", "grafana", "lagscope.json"),
	} {
		data, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		es = append(es, entry{Name: name, Data: data, Mode: 0o644})
	}
	for _, e := range es {
		p := filepath.Join(stage, filepath.FromSlash(e.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, e.Data, 0o644); err != nil {
			return err
		}
	}
	for i := range es {
		es[i].Name = chartName + "/" + es[i].Name
	}
	return writeTarGz(filepath.Join(b.Out, fmt.Sprintf("%s-%s.tgz", chartName, b.Version)), es, b.Date)
}

var (
	chartVersion    = regexp.MustCompile(`(?m)^version:.*$`)
	chartAppVersion = regexp.MustCompile(`(?m)^appVersion:.*$`)
)

// setChartVersion sets Chart.yaml's version and appVersion to v.
func setChartVersion(chart []byte, v string) []byte {
	s := chartVersion.ReplaceAllString(string(chart), "version: "+v)
	s = chartAppVersion.ReplaceAllString(s, fmt.Sprintf("appVersion: %q", v))
	return []byte(strings.TrimRight(s, "\n") + "\n")
}
