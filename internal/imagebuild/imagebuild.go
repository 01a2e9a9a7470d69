// Package imagebuild makes netscript's container image from its static
// binary, with no registry, no daemon and no base image: one layer holding
// the binary, /etc/passwd and /etc/group naming the unprivileged user it
// runs as, and an empty /tmp; no shell, no package manager, no libraries
// (the binary is static). The same binary and time give the same bytes,
// so the image's digest names its contents.
//
// It writes the image with go-containerregistry (the library ko is built
// on) as a docker-archive tarball, which `docker load`, `podman load`,
// `ctr image import` and `kind load image-archive` take, and as an OCI
// layout directory, which skopeo, crane and `ctr` copy from.
package imagebuild

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user the image runs as: not root, in the range distroless images
// give "nonroot", so a cluster's runAsNonRoot admits it.
const (
	UID      = 65532
	UserName = "netscript"
)

// Entrypoint is the binary's path in the image; the default command is
// the daemon.
const Entrypoint = "/netscript"

// ControlPort is the daemon's control port, exposed by the image.
const ControlPort = "12866/tcp"

// Options describe the image to build.
type Options struct {
	Binary   string    // path of the static netscript binary (CGO_ENABLED=0)
	Created  time.Time // the time of the image and its files: the commit's, for reproducibility
	Version  string    // org.opencontainers.image.version
	Revision string    // org.opencontainers.image.revision: the commit
	Arch     string    // the binary's architecture, GOARCH's name ("amd64")
}

// Build assembles the image.
func Build(opt Options) (v1.Image, error) {
	bin, err := os.ReadFile(opt.Binary)
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	if opt.Arch == "" {
		return nil, fmt.Errorf("image: no architecture for %s", opt.Binary)
	}
	created := opt.Created.UTC()
	layerTar, err := rootfs(bin, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("image: layer: %w", err)
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: created},
			CreatedBy: "netscript make image: the static binary, /etc/passwd, /etc/group, /tmp",
		},
		MediaType: types.OCILayer,
	})
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = opt.Arch, "linux"
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{
		Entrypoint:   []string{Entrypoint},
		Cmd:          []string{"serve"},
		User:         fmt.Sprintf("%d:%d", UID, UID),
		WorkingDir:   "/tmp",
		Env:          []string{"HOME=/tmp"},
		ExposedPorts: map[string]struct{}{ControlPort: {}},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "netscript",
			"org.opencontainers.image.description": "netscript: network benchmarks as Starlark scripts; the daemon serves and runs tests (netscript serve)",
			"org.opencontainers.image.version":     opt.Version,
			"org.opencontainers.image.revision":    opt.Revision,
			"org.opencontainers.image.created":     created.Format(time.RFC3339),
			// What the agents need of the kernel, read by people and
			// deploy/kubernetes: nothing beyond an unprivileged process;
			// NET_ADMIN only lets tests pick a congestion control the
			// node does not allow (net.ipv4.tcp_allowed_congestion_control).
			"io.netscript.capabilities": "none; optional NET_ADMIN for congestion= outside net.ipv4.tcp_allowed_congestion_control",
		},
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	return img, nil
}

// rootfs is the layer's tar: entries in a fixed order, every time created,
// owners numeric, no names of the build machine's users.
func rootfs(bin []byte, created time.Time) ([]byte, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:/tmp:/sbin/nologin\n", UserName, UID, UID, UserName)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", UserName, UID)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []struct {
		hdr  tar.Header
		body []byte
	}{
		{tar.Header{Typeflag: tar.TypeDir, Name: "etc/", Mode: 0o755}, nil},
		{tar.Header{Typeflag: tar.TypeReg, Name: "etc/group", Mode: 0o444}, []byte(group)},
		{tar.Header{Typeflag: tar.TypeReg, Name: "etc/passwd", Mode: 0o444}, []byte(passwd)},
		{tar.Header{Typeflag: tar.TypeReg, Name: "netscript", Mode: 0o555}, bin},
		{tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777}, nil},
	}
	for _, e := range entries {
		h := e.hdr
		h.Size = int64(len(e.body))
		h.ModTime, h.Format = created, tar.FormatPAX
		if err := tw.WriteHeader(&h); err != nil {
			return nil, fmt.Errorf("image: layer: %w", err)
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, fmt.Errorf("image: layer: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("image: layer: %w", err)
	}
	return buf.Bytes(), nil
}
