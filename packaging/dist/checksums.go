package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// writeChecksums writes SHA256SUMS over every artifact in b.Out, in the
// format 'sha256sum -c SHA256SUMS' reads in that directory.
func writeChecksums(b Build) error {
	es, err := os.ReadDir(b.Out)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range es {
		if e.Type().IsRegular() && e.Name() != "SHA256SUMS" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var sb strings.Builder
	for _, n := range names {
		f, err := os.Open(filepath.Join(b.Out, n))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&sb, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), n)
	}
	return os.WriteFile(filepath.Join(b.Out, "SHA256SUMS"), []byte(sb.String()), 0o644)
}
