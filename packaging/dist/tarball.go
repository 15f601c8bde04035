package main

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// entry is one file of an archive: its path in the archive, where its bytes
// come from (a file, or data) and its mode.
type entry struct {
	Name string
	Src  string
	Data []byte
	Mode int64
}

// writeTar writes entries (with the directories above them) as a tar
// stream whose files all belong to root and carry mtime: the same inputs
// give the same bytes.
func writeTar(w io.Writer, entries []entry, mtime time.Time) error {
	tw := tar.NewWriter(w)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	dirs := map[string]bool{}
	for _, e := range entries {
		var parents []string
		for d := filepath.Dir(e.Name); d != "." && d != "/" && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
			parents = append([]string{d}, parents...)
		}
		for _, d := range parents {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
				return err
			}
		}
		data := e.Data
		if e.Src != "" {
			var err error
			if data, err = os.ReadFile(e.Src); err != nil {
				return err
			}
		}
		h := &tar.Header{Typeflag: tar.TypeReg, Name: e.Name, Mode: e.Mode, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	return tw.Close()
}

// writeTarGz writes entries as a gzipped tar file at path.
func writeTarGz(path string, entries []entry, mtime time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.ModTime = mtime
	if err := writeTar(zw, entries, mtime); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// docs are the files every tarball carries beside the binary.
func (b Build) docs() []entry {
	var es []entry
	for _, f := range []string{"LICENSE", "README.md", "CHANGELOG.md"} {
		es = append(es, entry{Name: f, Src: filepath.Join(b.Root, f), Mode: 0o644})
	}
	return es
}

// stagedFiles lists the files of the staged dir (man pages or completions).
func (b Build) stagedFiles(dir string) ([]string, error) {
	es, err := os.ReadDir(filepath.Join(b.Stage, dir))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range es {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// writeTarballs writes lagscope_V_OS_ARCH.tar.gz per target: the binary,
// LICENSE, README.md, CHANGELOG.md, man/ and completions/, under a
// directory of the tarball's name.
func writeTarballs(b Build) error {
	for _, t := range b.Targets {
		name := b.Name(t)
		es := []entry{{Name: "lagscope", Src: b.Binary(t), Mode: 0o755}}
		es = append(es, b.docs()...)
		for _, dir := range []string{"man", "completions"} {
			files, err := b.stagedFiles(dir)
			if err != nil {
				return err
			}
			for _, f := range files {
				es = append(es, entry{Name: dir + "/" + f, Src: filepath.Join(b.Stage, dir, f), Mode: 0o644})
			}
		}
		for i := range es {
			es[i].Name = name + "/" + es[i].Name
		}
		if err := writeTarGz(filepath.Join(b.Out, name+".tar.gz"), es, b.Date); err != nil {
			return err
		}
	}
	return nil
}
