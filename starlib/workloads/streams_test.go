package workloads_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/internal/startest"
	"netscript/starlib"
)

// TestFastOpenWarning: when the server's kernel lacks Fast Open's server
// bit, a fastopen test says so on stderr in plain words, once for the
// three tests of a loop.
func TestFastOpenWarning(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_fastopen")
	if err != nil || strings.TrimSpace(string(b)) != "1" {
		t.Skip("needs this machine's net.ipv4.tcp_fastopen=1 (the namespace tests cover the rest)")
	}
	th, env := startest.NewThread(t)
	var stderr bytes.Buffer
	env.Stderr = &stderr
	if _, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "tfo.star", `[tcp_crr(transactions=5, fastopen=True) for _ in range(3)]`, starlib.Predeclared()); err != nil {
		t.Fatal(err)
	}
	want := "netscript: warning: tcp_crr: fastopen: the server's kernel does not accept TCP Fast Open: its net.ipv4.tcp_fastopen is 1, without the server bit (2)"
	if !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr:\n%s\nwant one line starting %q", stderr.String(), want)
	}
}
