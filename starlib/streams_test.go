package starlib

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/client"
	"netscript/starlib/output"
)

// TestFastOpenWarning: when the server's kernel lacks Fast Open's server
// bit, a fastopen test says so on stderr in plain words, once for the
// three tests of a loop.
func TestFastOpenWarning(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_fastopen")
	if err != nil || strings.TrimSpace(string(b)) != "1" {
		t.Skip("needs this machine's net.ipv4.tcp_fastopen=1 (the namespace tests cover the rest)")
	}
	th, env := newTestThread(t)
	var stderr bytes.Buffer
	env.Stderr = &stderr
	if _, err := starlark.ExecFileOptions(FileOptions(), th, "tfo.star", `[tcp_crr(duration=0.1, fastopen=True) for _ in range(3)]`, Predeclared()); err != nil {
		t.Fatal(err)
	}
	want := "netscript: warning: tcp_crr: fastopen: the server's kernel does not accept TCP Fast Open: its net.ipv4.tcp_fastopen is 1, without the server bit (2)"
	if !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr:\n%s\nwant one line starting %q", stderr.String(), want)
	}
}

// fakeReporter records what a display is given.
type fakeReporter struct {
	mu      sync.Mutex
	tests   int
	done    int
	interim []client.Interim
}

func (f *fakeReporter) Test(client.Progress)       { f.mu.Lock(); f.tests++; f.mu.Unlock() }
func (f *fakeReporter) Iteration(string, int, int) {}
func (f *fakeReporter) Done()                      { f.mu.Lock(); f.done++; f.mu.Unlock() }

type interimReporter struct{ fakeReporter }

func (f *interimReporter) Interim(i client.Interim) {
	f.mu.Lock()
	f.interim = append(f.interim, i)
	f.mu.Unlock()
}

// TestInterimHook: interim results go to a Reporter that shows them, else
// as plain lines between a Reporter's status lines, else nowhere live
// (stderr is not a terminal here) but always into result.interim.
func TestInterimHook(t *testing.T) {
	code := `r = tcp_stream(duration=0.6, interval=0.2)`
	run := func(env *Env, th *starlark.Thread) starlark.StringDict {
		t.Helper()
		g, err := starlark.ExecFileOptions(FileOptions(), th, "iv.star", code, Predeclared())
		if err != nil {
			t.Fatal(err)
		}
		return g
	}

	th, env := newTestThread(t)
	rep := &interimReporter{}
	env.Progress = rep
	g := run(env, th)
	n := starlark.Len(mustField(t, g["r"], "interim"))
	if len(rep.interim) != n || n < 2 || rep.interim[0].Units != "10^6bits/s" || rep.interim[0].Test != "TCP_STREAM" {
		t.Errorf("the reporter saw %d samples (%+v), the result has %d", len(rep.interim), rep.interim, n)
	}

	th, env = newTestThread(t)
	var stderr bytes.Buffer
	plain := &fakeReporter{}
	env.Progress, env.Stderr = plain, &stderr
	run(env, th)
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "Interim result: ") || !strings.Contains(lines[0], "10^6bits/s over 0.") || !strings.HasSuffix(lines[0], "(TCP_STREAM)") {
		t.Errorf("plain interim lines:\n%s", stderr.String())
	}
	if plain.done < len(lines) {
		t.Errorf("the status line was cleared %d times for %d interim lines", plain.done, len(lines))
	}

	th, env = newTestThread(t)
	stderr.Reset()
	env.Stderr = &stderr
	g = run(env, th)
	if stderr.Len() != 0 {
		t.Errorf("interim lines on a stderr that is not a terminal:\n%s", stderr.String())
	}
	if n := starlark.Len(mustField(t, g["r"], "interim")); n < 2 {
		t.Errorf("%d samples in the result", n)
	}
}

func mustField(t *testing.T, v starlark.Value, name string) starlark.Value {
	t.Helper()
	f, err := output.Field(v, name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
