package imagebuild

import (
	"archive/tar"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// buildBinary builds netscript as `make image` does: static, paths
// trimmed.
func buildBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "netscript")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version=9.9.9-test", "-o", bin, "netscript/cmd/netscript")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestImage builds the image as `make image` does and reads it back from
// the tarball as `docker load` would: an OCI manifest of one layer; the
// config's entry point, default command, unprivileged user and port; a
// layer that holds the binary, /etc/passwd naming the user, /etc/group and
// /tmp, and nothing else (no shell, no package manager); the same inputs
// give the same digest. Then the binary taken out of the layer runs, as the
// image's user, a test on loopback. (This machine has the docker client
// and no daemon, nor podman: it cannot run containers, so the binary runs
// straight from the unpacked layer.)
func TestImage(t *testing.T) {
	bin := buildBinary(t)
	opt := Options{Binary: bin, Created: time.Unix(1700000000, 0), Version: "9.9.9-test", Revision: "abc123", Arch: runtime.GOARCH}
	img, err := Build(opt)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "image.tar")
	if err := WriteTarball(img, "netscript:test", path); err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(img, "netscript:test", filepath.Join(dir, "oci")); err != nil {
		t.Fatal(err)
	}
	loaded, err := tarball.ImageFromPath(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The layout keeps the OCI manifest; a docker archive keeps the config
	// and the layers, byte for byte (a loader writes its own manifest).
	p, err := layout.FromPath(filepath.Join(dir, "oci"))
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := p.ImageIndex()
	im, _ := idx.IndexManifest()
	if len(im.Manifests) != 1 {
		t.Fatalf("the layout holds %d images", len(im.Manifests))
	}
	fromLayout, err := p.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	m, err := fromLayout.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != "application/vnd.oci.image.manifest.v1+json" || len(m.Layers) != 1 || m.Layers[0].MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" {
		t.Errorf("manifest: %s with layers %v", m.MediaType, m.Layers)
	}
	c1, _ := img.ConfigName()
	c2, _ := loaded.ConfigName()
	if c1 != c2 || m.Config.Digest != c1 {
		t.Errorf("config %s, in the archive %s, in the layout %s", c1, c2, m.Config.Digest)
	}
	cf, err := loaded.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if strings.Join(c.Entrypoint, " ") != "/netscript" || strings.Join(c.Cmd, " ") != "serve" ||
		c.User != "65532:65532" || cf.OS != "linux" || cf.Architecture != runtime.GOARCH {
		t.Errorf("config: entrypoint %q cmd %q user %q %s/%s", c.Entrypoint, c.Cmd, c.User, cf.OS, cf.Architecture)
	}
	if _, ok := c.ExposedPorts["12866/tcp"]; !ok || !cf.Created.Equal(opt.Created) {
		t.Errorf("config: ports %v created %v", c.ExposedPorts, cf.Created)
	}

	files := layerFiles(t, loaded)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	if got := strings.Join(names, " "); got != "etc/ etc/group etc/passwd netscript tmp/" {
		t.Errorf("the layer holds %s", got)
	}
	for _, n := range names {
		if strings.Contains(n, "sh") || strings.HasPrefix(n, "bin") || strings.HasPrefix(n, "usr") {
			t.Errorf("the layer holds %s", n)
		}
	}
	if !strings.Contains(string(files["etc/passwd"]), "netscript:x:65532:65532:") {
		t.Errorf("/etc/passwd: %q", files["etc/passwd"])
	}

	// Reproducible: the same binary and time, the same digest, in the
	// tarball and in the layout.
	again, err := Build(opt)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := img.Digest()
	d2, _ := again.Digest()
	if d1 != d2 || im.Manifests[0].Digest != d1 {
		t.Errorf("digests %s, %s, in the layout %s", d1, d2, im.Manifests[0].Digest)
	}

	// The binary out of the layer runs, as the image's user (who can
	// reach a directory of its own, not the test's).
	run, err := os.MkdirTemp("", "netscript-image-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	if err := os.Chmod(run, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(run, "netscript")
	if err := os.WriteFile(exe, files["netscript"], 0o555); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-c", "print(tcp_rr(transactions=100).transactions)")
	cmd.Dir = run
	cmd.Env = []string{"HOME=/tmp"}
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UID, Gid: UID}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "100" {
		t.Errorf("the image's binary as uid %d: %v\n%s", UID, err, out)
	}
	out, err = exec.Command(exe, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "9.9.9-test") {
		t.Errorf("version: %v %s", err, out)
	}
}

// layerFiles reads the image's one layer: each entry's name and contents.
func layerFiles(t *testing.T, img v1.Image) map[string][]byte {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers: %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || !h.ModTime.Equal(time.Unix(1700000000, 0)) {
			t.Errorf("%s: owner %d:%d %q, time %v", h.Name, h.Uid, h.Gid, h.Uname, h.ModTime)
		}
		files[h.Name] = b
	}
}
