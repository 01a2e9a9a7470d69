package main

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/childproc"
	"netscript/engine/client"
	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// daemonProc is a `netscript serve` started as its own process.
type daemonProc struct {
	cmd    *exec.Cmd
	port   int         // its control port, as it said
	stderr *syncBuffer // what it wrote to stderr so far
	done   chan struct{}
}

// syncBuffer is a bytes.Buffer that a process's output can be copied into
// while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startDaemon runs `netscript serve` on a loopback port the kernel chooses,
// with args and env (added to this process's, less any token), and waits
// until it says where it listens. It is killed when the test ends.
func startDaemon(t *testing.T, env []string, args ...string) *daemonProc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(cleanEnv(), env...)
	return watchDaemon(t, cmd, 0)
}

// listening is the daemon's line that says where it listens.
var listening = regexp.MustCompile(`netscript serve: listening on 127\.0\.0\.1:([0-9]+) `)

// watchDaemon starts cmd, a `netscript serve` on one control address (and
// standing ones data endpoints), copies its stderr, and waits until it has
// said that it listens and opened every endpoint: the port comes from what
// it says, not from a guess made before it started. The wait is generous;
// the daemon is killed when the test ends.
func watchDaemon(t *testing.T, cmd *exec.Cmd, standing int) *daemonProc {
	t.Helper()
	d := &daemonProc{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = d.stderr
	if err := childproc.Start(cmd); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(d.done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-d.done })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out := d.stderr.String()
		if m := listening.FindStringSubmatch(out); m != nil && strings.Count(out, "netscript serve: standing ") >= standing {
			d.port, _ = strconv.Atoi(m[1])
			return d
		}
		select {
		case <-d.done:
			t.Fatalf("the daemon exited before it listened:\n%s", out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not say it listens within 30 s:\n%s", out)
		}
	}
}

// cleanEnv is this process's environment without a token.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, auth.EnvToken+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// netscriptEnv runs the binary like netscript, with env added to a
// token-free environment.
func netscriptEnv(t *testing.T, limit time.Duration, env []string, args ...string) ran {
	t.Helper()
	return runBin(t, limit, append(cleanEnv(), env...), args...)
}

// TestToken: a daemon with a token serves only clients that prove it,
// whether they give it by file or environment; every other pairing ends in
// one line that says what to do, and a wrong token reveals nothing more.
func TestToken(t *testing.T) {
	dir := t.TempDir()
	const secret = "correct horse battery staple"
	good := filepath.Join(dir, "token")
	os.WriteFile(good, []byte(secret+"\n"), 0o600)
	wrong := filepath.Join(dir, "wrong")
	os.WriteFile(wrong, []byte("correct horse battery stapler"), 0o600)
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("1234"), 0o600)

	d := startDaemon(t, nil, "--token-file", good)
	open := startDaemon(t, nil)
	code := func(port int) string {
		return fmt.Sprintf("r = tcp_rr(host='127.0.0.1', port=%d, transactions=20)\nprint(r.remote.transactions == r.transactions + r.discarded)", port)
	}
	ok := []struct {
		name string
		env  []string
		args []string
	}{
		{"token file", nil, []string{"--token-file", good, "-c", code(d.port)}},
		{"environment", []string{auth.EnvToken + "=" + secret}, []string{"-c", code(d.port)}},
		{"open server, no token", nil, []string{"-c", code(open.port)}},
	}
	for _, c := range ok {
		r := netscriptEnv(t, 30*time.Second, c.env, c.args...)
		if r.code != 0 || strings.TrimSpace(r.stdout) != "True" {
			t.Errorf("%s: %+v", c.name, r)
		}
	}
	bad := []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"no token", nil, []string{"-c", code(d.port)}, 1,
			"this server requires a token: set $NETSCRIPT_TOKEN, or run netscript --token-file FILE"},
		{"wrong token", nil, []string{"--token-file", wrong, "-c", code(d.port)}, 1,
			fmt.Sprintf("tcp_rr: control 127.0.0.1:%d: authentication failed: the server does not accept this token", d.port)},
		{"token for an open server", []string{auth.EnvToken + "=" + secret}, []string{"-c", code(open.port)}, 1,
			"this server asks for no token, so it cannot prove it holds yours"},
		{"short token", nil, []string{"--token-file", short, "-c", code(d.port)}, 2,
			"netscript: token from " + short + ": 4 bytes, want at least 16"},
		{"short token in the environment", []string{auth.EnvToken + "=1234"}, []string{"-c", code(d.port)}, 2,
			"netscript: token from $NETSCRIPT_TOKEN: 4 bytes, want at least 16"},
	}
	for _, c := range bad {
		oneLine(t, netscriptEnv(t, 30*time.Second, c.env, c.args...), c.code, c.want)
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	<-d.done
	if s := d.stderr.String(); !strings.Contains(s, "clients must prove they hold the token from "+good) || strings.Contains(s, "anyone") {
		t.Errorf("the daemon's start line:\n%s", s)
	}
	if s := d.stderr.String(); strings.Contains(s, "warning") {
		t.Errorf("a warning about a token file only its owner can read:\n%s", s)
	}
	if s := d.stderr.String(); !strings.Contains(s, "authentication failed") {
		t.Errorf("the daemon did not log the refusals:\n%s", s)
	}
}

// TestServeBounds: the operator's bounds reach the script's user as one
// line naming the flag; bad flags are usage errors.
func TestServeBounds(t *testing.T) {
	d := startDaemon(t, nil, "--max-duration", "1m", "--max-message", "1000")
	cases := []struct{ code, want string }{
		{"tcp_rr(host='127.0.0.1', port=%d, duration='2m')", "duration 2m0s exceeds this server's limit of 1m0s (netscript serve --max-duration)"},
		{"tcp_rr(host='127.0.0.1', port=%d, duration=1, request=2000)", "request size 2000 bytes exceeds this server's limit of 1000 bytes (netscript serve --max-message)"},
	}
	for _, c := range cases {
		oneLine(t, netscriptEnv(t, 30*time.Second, nil, "-c", fmt.Sprintf(c.code, d.port)), 1, "tcp_rr: ", "server: "+c.want)
	}
	// A token file others can read is served, with a warning.
	open := filepath.Join(t.TempDir(), "token")
	os.WriteFile(open, []byte("correct horse battery staple"), 0o644)
	w := startDaemon(t, nil, "--token-file", open)
	w.cmd.Process.Signal(syscall.SIGTERM)
	<-w.done
	if !strings.Contains(w.stderr.String(), "warning: other users can read the token file "+open+" (chmod 600 "+open+")") {
		t.Errorf("no warning about a readable token file:\n%s", w.stderr.String())
	}
	for _, c := range []struct{ flag, value, want string }{
		{"--max-tests", "0", "netscript serve: --max-tests must be positive"},
		{"--data-ports", "5-1", `port range "5-1": want LO-HI within 1-65535`},
		{"--token-file", "/nonexistent/token", "netscript serve: token file: stat /nonexistent/token: no such file"},
	} {
		r := netscriptEnv(t, 10*time.Second, nil, "serve", "--listen", "127.0.0.1:0", c.flag, c.value)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("serve %s %s: exit %d, stderr:\n%s", c.flag, c.value, r.code, r.stderr)
		}
	}
}

// fds counts this process's open descriptors.
func fds(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(es)
}

// TestClientKilledMidTest: a client process killed with SIGKILL in the
// middle of a test. The in-process daemon ends that session within a few
// seconds, a good test running beside it finishes with counts that agree,
// and no descriptor or goroutine is left.
func TestClientKilledMidTest(t *testing.T) {
	t.Setenv(auth.EnvToken, "")
	th := &workload.Threads{}
	srv := server.New(server.Config{Version: "test", Threads: th})
	defer srv.Close()
	a, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ap := netip.MustParseAddrPort(a.String())
	fd0, g0 := fds(t), runtime.NumGoroutine()

	good := make(chan error, 1)
	go func() {
		s := spec.Default(spec.TCPRR)
		s.Host, s.Port, s.Duration = "127.0.0.1", int(ap.Port()), 4*time.Second
		r, err := client.Run(context.Background(), s, client.Options{Threads: th})
		if err == nil && r.Remote.Transactions != r.Transactions+r.Discarded {
			err = fmt.Errorf("good test: client %d + %d discarded, server %d", r.Transactions, r.Discarded, r.Remote.Transactions)
		}
		good <- err
	}()
	victim := exec.Command(bin, "-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, duration=60)", ap.Port()))
	victim.Env = cleanEnv()
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "both tests running", func() bool { return srv.Load().Running == 2 })
	time.Sleep(500 * time.Millisecond) // into the measured interval
	victim.Process.Kill()
	victim.Wait()
	killed := time.Now()
	waitFor(t, 5*time.Second, "the killed client's session to end", func() bool { return srv.Load().Running <= 1 })
	t.Logf("the daemon ended the killed client's session %v after the kill", time.Since(killed).Round(time.Millisecond))
	select {
	case err := <-good:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the good test did not end")
	}
	waitFor(t, 30*time.Second, "no descriptor or goroutine left", func() bool {
		return fds(t) <= fd0 && runtime.NumGoroutine() <= g0
	})
}

// waitFor polls cond until it holds, failing after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDaemonKilledMidTest: the daemon process is killed with SIGKILL in
// the middle of a test. The client stops with one clear line that keeps
// what it measured, and exits non-zero. The client's stderr is a terminal,
// so its live progress line says when the test is measuring: the kill
// comes then.
func TestDaemonKilledMidTest(t *testing.T) {
	d := startDaemon(t, nil)
	p := startOnPTY(t, []string{"-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, duration=60)", d.port)})
	p.expectRE(measuring, 60*time.Second)
	d.cmd.Process.Kill()
	killed := time.Now()
	out, err := p.wait(20 * time.Second) // a hang guard: the test is 60 s long
	r := ran{stderr: visible(out), took: time.Since(killed)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	}
	t.Logf("the client stopped %v after the daemon died", r.took)
	oneLine(t, r, 1, "tcp_rr: ", "the server closed the control connection during the test", "measured before that:")
}

// TestEmbeddedServerIsNotBounded: a script's own embedded server refuses
// nothing a daemon's default bounds would (here a request larger than
// --max-message's default). By a count: in 0.2 s one 20 MB transaction
// took up to 80 ms with both CPUs busy (5-10 done, 9-17 idle), a margin a
// busier machine could eat, and none done is an error of its own.
func TestEmbeddedServerIsNotBounded(t *testing.T) {
	r := netscriptEnv(t, 60*time.Second, nil, "-c", "r = tcp_rr(request=20000000, transactions=3)\nprint(r.transactions == 3)")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "True" {
		t.Fatalf("%+v", r)
	}
}
