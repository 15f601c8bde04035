package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm" // registers the rpm packager
)

// Where the packages install the shells' completion scripts, by the name
// internal/docgen gives them.
var completionPaths = map[string]string{
	"lagscope.bash": "/usr/share/bash-completion/completions/lagscope",
	"_lagscope":     "/usr/share/zsh/vendor-completions/_lagscope",
	"lagscope.fish": "/usr/share/fish/vendor_completions.d/lagscope.fish",
}

// writePackages writes a .deb and an .rpm per Linux target.
func writePackages(b Build) error {
	for _, t := range b.Targets {
		if t.OS != "linux" {
			continue
		}
		for _, format := range []string{"deb", "rpm"} {
			if err := writePackage(b, t, format); err != nil {
				return err
			}
		}
	}
	return nil
}

func writePackage(b Build, t Target, format string) error {
	contents, err := b.packageContents(t)
	if err != nil {
		return err
	}
	pk := filepath.Join(b.Root, "packaging")
	info := &nfpm.Info{
		Name:        "lagscope",
		Arch:        t.Arch,
		Platform:    "linux",
		Version:     b.Version,
		Release:     "1",
		Section:     "database",
		Priority:    "optional",
		Maintainer:  "lagscope maintainers <lagscope@users.noreply.github.com>",
		Description: "Find where PostgreSQL logical replication lag comes from\nlagscope measures a logical replication path end to end and names the stage\nthat limits the drain, with its evidence. Includes the Prometheus exporter\nas a systemd service, its Grafana dashboard and alert rules.",
		Vendor:      "lagscope",
		Homepage:    "https://github.com/lagscope/lagscope",
		License:     "Apache-2.0",
		MTime:       b.Date,
		Overridables: nfpm.Overridables{
			Depends:  map[string][]string{"deb": {"passwd"}, "rpm": {"shadow-utils"}}[format],
			Contents: contents,
			Scripts: nfpm.Scripts{
				PostInstall: filepath.Join(pk, "scripts", "postinstall.sh"),
				PreRemove:   filepath.Join(pk, "scripts", "preremove.sh"),
				PostRemove:  filepath.Join(pk, "scripts", "postremove.sh"),
			},
		},
	}
	info = nfpm.WithDefaults(info)
	if err := nfpm.PrepareForPackager(info, format); err != nil {
		return err
	}
	p, err := nfpm.Get(format)
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(b.Out, p.ConventionalFileName(info)))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := p.Package(info, f); err != nil {
		return err
	}
	return f.Close()
}

// packageContents lists the package's files: the binary, gzipped man
// pages, completions, the dashboard and alert rules under
// /usr/share/lagscope, the systemd unit and the exporter's config.
func (b Build) packageContents(t Target) (files.Contents, error) {
	gen := filepath.Join(b.Stage, "pkg")
	file := func(src, dst string, mode os.FileMode) *files.Content {
		return &files.Content{Source: src, Destination: dst, FileInfo: &files.ContentFileInfo{Mode: mode, Owner: "root", Group: "root", MTime: b.Date}}
	}
	config := func(src, dst string) *files.Content {
		c := file(src, dst, 0o640)
		c.Type = files.TypeConfigNoReplace
		return c
	}
	cs := files.Contents{
		file(b.Binary(t), "/usr/bin/lagscope", 0o755),
		file(filepath.Join(b.Root, "docs", "grafana", "lagscope.json"), "/usr/share/lagscope/grafana/lagscope.json", 0o644),
		file(filepath.Join(b.Root, "docs", "prometheus", "alerts.yml"), "/usr/share/lagscope/prometheus/alerts.yml", 0o644),
		file(filepath.Join(b.Root, "packaging", "systemd", "lagscope-exporter.service"), "/usr/lib/systemd/system/lagscope-exporter.service", 0o644),
		config(filepath.Join(b.Root, "packaging", "etc", "exporter.yml"), "/etc/lagscope/exporter.yml"),
		config(filepath.Join(b.Root, "packaging", "etc", "exporter.env"), "/etc/lagscope/exporter.env"),
		file(filepath.Join(b.Root, "LICENSE"), "/usr/share/doc/lagscope/copyright", 0o644),
		file(filepath.Join(b.Root, "README.md"), "/usr/share/doc/lagscope/README.md", 0o644),
		file(filepath.Join(b.Root, "CHANGELOG.md"), "/usr/share/doc/lagscope/CHANGELOG.md", 0o644),
	}
	comps, err := b.stagedFiles("completions")
	if err != nil {
		return nil, err
	}
	for _, c := range comps {
		if dst, ok := completionPaths[c]; ok {
			cs = append(cs, file(filepath.Join(b.Stage, "completions", c), dst, 0o644))
		}
	}
	pages, err := b.stagedFiles("man")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(gen, 0o755); err != nil {
		return nil, err
	}
	for _, p := range pages {
		gz := filepath.Join(gen, p+".gz")
		if err := gzipFile(filepath.Join(b.Stage, "man", p), gz, b); err != nil {
			return nil, err
		}
		cs = append(cs, file(gz, "/usr/share/man/man1/"+p+".gz", 0o644))
	}
	return cs, nil
}

// gzipFile compresses src into dst with the build's time (man-db reads
// .gz pages; Debian's policy wants them compressed).
func gzipFile(src, dst string, b Build) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.ModTime = b.Date
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}
