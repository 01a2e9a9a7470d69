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

// EnvBinary names a kube-apiserver to use instead of the cached build;
// EnvProxy a kube-proxy.
const (
	EnvBinary = "NETSCRIPT_KUBE_APISERVER"
	EnvProxy  = "NETSCRIPT_KUBE_PROXY"
)

// A Recipe is a Kubernetes component built from the module proxy by a Go
// module of its own beside this file: its binary's name, the module's
// directory, and the variable that names a binary to use instead.
type Recipe struct {
	Name, Dir, Env string
}

// APIServer is kube-apiserver's recipe (kas/).
func APIServer() Recipe { return Recipe{"kube-apiserver", recipeDir("kas"), EnvBinary} }

// Proxy is kube-proxy's recipe (kproxy/), for tests through a Service.
func Proxy() Recipe { return Recipe{"kube-proxy", recipeDir("kproxy"), EnvProxy} }

// Recipes are the components `make kube-apiserver` builds.
func Recipes() []Recipe { return []Recipe{APIServer(), Proxy()} }

// recipeDir returns the directory of the module name beside this file.
func recipeDir(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), name)
}

// CachedPath is where the build of the recipe is kept: under the user's
// cache directory, in a folder named for the component, the release and a
// digest of the recipe's go.mod, go.sum and main.go, so a changed recipe
// builds anew and an unchanged one is reused.
func (r Recipe) CachedPath() (string, error) {
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		b, err := os.ReadFile(filepath.Join(r.Dir, f))
		if err != nil {
			return "", fmt.Errorf("%s recipe: %w", r.Name, err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%s cache: %w", r.Name, err)
	}
	key := Version + "-" + hex.EncodeToString(h.Sum(nil))[:12]
	return filepath.Join(cache, "netscript", r.Name+"-"+key, r.Name), nil
}

// Build builds the recipe into its cached path unless it is already
// there, at the lowest CPU priority (it takes minutes on two CPUs), and
// returns the path. Output of the build goes to log.
func (r Recipe) Build(log *os.File) (string, error) {
	path, err := r.CachedPath()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("%s cache: %w", r.Name, err)
	}
	tmp := path + ".tmp"
	args := []string{"-n", "19", "go", "build", "-trimpath", "-o", tmp, "."}
	cmd := exec.Command("nice", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false", "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("build %s %s in %s: %w", r.Name, Version, r.Dir, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("%s cache: %w", r.Name, err)
	}
	return path, nil
}

// Binary returns the path of the recipe's binary ($Env, else the cached
// build), or skips the test (fails it under CI, where .ci/run builds it)
// saying how to build it.
func (r Recipe) Binary(t testing.TB) string {
	t.Helper()
	path := os.Getenv(r.Env)
	if path == "" {
		var err error
		if path, err = r.CachedPath(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); err != nil {
		missing(t, fmt.Sprintf("no %s at %s (make kube-apiserver builds it, minutes on two CPUs; or set $%s): %v", r.Name, path, r.Env, bare(err)))
	}
	return path
}

// Binaries returns the paths of kube-apiserver and etcd, or skips the test
// (fails it under CI, where .ci/run provides both) naming what is missing.
func Binaries(t testing.TB) (kas, etcd string) {
	t.Helper()
	kas = APIServer().Binary(t)
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
