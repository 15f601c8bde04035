package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// imageUser is the image's user: not root, the uid distroless calls
// nonroot (the Helm chart runs as it too).
const imageUser = "65532:65532"

// writeImage writes lagscope_V_oci.tar: an OCI image layout (an index with
// one image per Linux target) whose only file is the static binary at
// /usr/bin/lagscope, run as 65532. 'skopeo copy oci-archive:FILE
// docker://REGISTRY/lagscope:vV' or 'podman load' take it.
func writeImage(b Build) error {
	dir := filepath.Join(b.Stage, "oci")
	os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	for _, t := range b.Targets {
		if t.OS != "linux" {
			continue
		}
		img, err := b.image(t)
		if err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		ref := "v" + b.Version
		if err := p.AppendImage(img, layout.WithPlatform(v1.Platform{OS: t.OS, Architecture: t.Arch}),
			layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref})); err != nil {
			return err
		}
	}
	var es []entry
	err = filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		es = append(es, entry{Name: filepath.ToSlash(rel), Src: path, Mode: 0o644})
		return nil
	})
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(b.Out, fmt.Sprintf("lagscope_%s_oci.tar", b.Version)))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := writeTar(f, es, b.Date); err != nil {
		return err
	}
	return f.Close()
}

// image is the target's image: one layer holding the binary.
func (b Build) image(t Target) (v1.Image, error) {
	var layerTar bytes.Buffer
	if err := writeTar(&layerTar, []entry{{Name: "usr/bin/lagscope", Src: b.Binary(t), Mode: 0o755}}, b.Date); err != nil {
		return nil, err
	}
	data := layerTar.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = t.OS, t.Arch
	cf.Created = v1.Time{Time: b.Date}
	cf.Config.User = imageUser
	cf.Config.Entrypoint = []string{"/usr/bin/lagscope"}
	cf.Config.Cmd = []string{"exporter", "--config", "/etc/lagscope/exporter.yml", "--listen", ":9752"}
	cf.Config.ExposedPorts = map[string]struct{}{"9752/tcp": {}}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":    "lagscope",
		"org.opencontainers.image.version":  "v" + b.Version,
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.source":   "https://github.com/lagscope/lagscope",
	}
	return mutate.ConfigFile(img, cf)
}
