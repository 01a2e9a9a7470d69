// Package kubetest runs a real Kubernetes API server (kube-apiserver on
// Debian's etcd) and a real DNS server (Debian's dnsmasq) for netscript's
// discovery tests, inside a network namespace the test made, and removes
// every process and file when the test ends.
//
// kube-apiserver is built from the module proxy by the recipe in kas/ (a
// module of its own) once per machine, into the user's cache
// (`make kube-apiserver`, which .ci/run calls before `make test`). A test
// that finds no binary skips, saying how to build it; under CI it fails.
package kubetest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Version is the Kubernetes release the recipe in kas/ builds. netscript's
// own k8s.io modules (client-go, api, apimachinery) are of the same
// release, so the tests decode and create objects with the server's types.
const Version = "v1.34.2"

// EnvBinary names a kube-apiserver to use instead of the cached build.
const EnvBinary = "NETSCRIPT_KUBE_APISERVER"

// RecipeDir returns the directory of the kas/ module beside this file.
func RecipeDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "kas")
}

// CachedPath is where the build of the recipe in dir is kept: under the
// user's cache directory, in a folder named for the release and a digest
// of the recipe's go.mod, go.sum and main.go, so a changed recipe builds
// anew and an unchanged one is reused.
func CachedPath(dir string) (string, error) {
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", fmt.Errorf("kube-apiserver recipe: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("kube-apiserver cache: %w", err)
	}
	key := Version + "-" + hex.EncodeToString(h.Sum(nil))[:12]
	return filepath.Join(cache, "netscript", "kube-apiserver-"+key, "kube-apiserver"), nil
}

// Build builds the recipe in dir into its cached path unless it is
// already there, at the lowest CPU priority (it takes minutes on two
// CPUs), and returns the path. Output of the build goes to log.
func Build(dir string, log *os.File) (string, error) {
	path, err := CachedPath(dir)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("kube-apiserver cache: %w", err)
	}
	tmp := path + ".tmp"
	args := []string{"-n", "19", "go", "build", "-trimpath", "-o", tmp, "."}
	cmd := exec.Command("nice", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false", "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("build kube-apiserver %s in %s: %w", Version, dir, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("kube-apiserver cache: %w", err)
	}
	return path, nil
}

// Binaries returns the paths of kube-apiserver and etcd, or skips the test
// (fails it under CI, where .ci/run provides both) naming what is missing.
func Binaries(t testing.TB) (kas, etcd string) {
	t.Helper()
	kas = os.Getenv(EnvBinary)
	if kas == "" {
		path, err := CachedPath(RecipeDir())
		if err != nil {
			t.Fatal(err)
		}
		kas = path
	}
	if _, err := os.Stat(kas); err != nil {
		missing(t, fmt.Sprintf("no kube-apiserver at %s (make kube-apiserver builds it, about 7 minutes on two CPUs; or set $%s): %v", kas, EnvBinary, bare(err)))
	}
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		missing(t, "no etcd (Debian: apt-get install etcd-server)")
	}
	return kas, etcd
}

// missing skips the test, or fails it under CI.
func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// bare is err without the path an fs.PathError repeats.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
