package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/auth"
	"netscript/engine/client/netservertest"
	"netscript/engine/proto"
	"netscript/engine/sock/socktest"
	"netscript/internal/leakcheck"
)

// bin is the netscript binary built for these tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "netscript-cli")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "netscript")
	// Built as `make build` builds it: static, no cgo.
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	// leakcheck: no daemon, namespace or listener may outlive the tests.
	code := leakcheck.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// result of running the binary.
type ran struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// netscript runs the binary with args, killing it after limit.
func netscript(t *testing.T, limit time.Duration, args ...string) ran {
	t.Helper()
	return runBin(t, limit, nil, args...)
}

// runBin runs the binary with args and env (nil: this process's), killing
// it after limit.
func runBin(t *testing.T, limit time.Duration, env []string, args ...string) ran {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err := cmd.Run()
	r := ran{stdout: o.String(), stderr: e.String(), took: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("netscript %q hung for %v; stderr so far:\n%s", args, limit, r.stderr)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// oneLine checks that a failed run printed exactly one error line holding
// every want, and exited with code.
func oneLine(t *testing.T, r ran, code int, want ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 {
		t.Errorf("stderr has %d lines, want 1:\n%s", len(lines), r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("stderr shows a panic:\n%s", r.stderr)
	}
}

// refusingPort returns a TCP port on 127.0.0.1 where nothing listens and
// nothing can while the test runs: the test holds it (socktest).
func refusingPort(t *testing.T) int {
	t.Helper()
	return socktest.Reserve(t, false)
}

// fakeServer listens on loopback and hands each connection to serve.
func fakeServer(t *testing.T, serve func(c net.Conn)) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); serve(c) }()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

func TestVersion(t *testing.T) {
	r := netscript(t, 10*time.Second, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "netscript ") || !strings.Contains(r.stdout, "go1.") {
		t.Fatalf("version: %+v", r)
	}
	// The binary was built with CGO_ENABLED=0, and says so.
	if !strings.Contains(r.stdout, ", static)") {
		t.Errorf("version does not say the build is static: %q", r.stdout)
	}
}

// TestBadInput: each mistake a user can make gives one clear line naming
// the cause and the script position, a non-zero exit, no panic, no hang.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "bad.star")
	os.WriteFile(script, []byte("x = 1\nr = tcp_rr(duration = 1, requets = 64)\n"), 0o644)
	notUTF8 := filepath.Join(dir, "latin1.star")
	os.WriteFile(notUTF8, []byte("print('caf\xe9')\n"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"unknown option in a file", []string{script}, 1, []string{"bad.star:2:11", "tcp_rr: unknown option requets (did you mean request?)"}},
		{"unknown option", []string{"-c", "tcp_rr(requets=1)"}, 1, []string{"<command-line>:1:7", "unknown option requets"}},
		{"zero size", []string{"-c", "tcp_rr(request=0)"}, 1, []string{"tcp_rr: request: must be at least 1 byte, got 0"}},
		{"negative size", []string{"-c", "tcp_crr(response=-1)"}, 1, []string{"tcp_crr: response: must be at least 1 byte, got -1"}},
		{"negative burst", []string{"-c", "udp_rr(burst=-1)"}, 1, []string{"udp_rr: burst: must be between 0 and 65536, got -1"}},
		{"duration that does not parse", []string{"-c", `tcp_rr(duration="ten seconds")`}, 1, []string{`tcp_rr: duration: "ten seconds" is not a duration`}},
		{"local address not on this machine", []string{"-c", `tcp_rr(local="198.18.0.99", duration=1)`}, 1, []string{"tcp_rr: local: bind 198.18.0.99:0: cannot assign requested address"}},
		// A syntax error also shows the line and a caret: TestScriptErrors.
		{"missing script", []string{filepath.Join(dir, "nope.star")}, 2, []string{"nope.star: no such file"}},
		{"directory", []string{dir}, 2, []string{"is a directory"}},
		{"not UTF-8", []string{notUTF8}, 2, []string{"not UTF-8"}},
		{"NAME=VALUE without =", []string{"-c", "print(1)", "duration"}, 2, []string{`argument "duration" is not NAME=VALUE`}},
		{"unknown flag", []string{"--frobnicate"}, 2, []string{"unknown flag --frobnicate"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := netscript(t, 20*time.Second, c.args...)
			if c.name == "unknown flag" { // usage follows the error line
				if r.code != c.code || !strings.Contains(r.stderr, c.want[0]) {
					t.Errorf("got %+v", r)
				}
				return
			}
			oneLine(t, r, c.code, c.want...)
		})
	}
}

// TestHostRefuses: nothing listens on the port.
func TestHostRefuses(t *testing.T) {
	port := refusingPort(t)
	r := netscript(t, 20*time.Second, "-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, duration=1)", port))
	oneLine(t, r, 1, fmt.Sprintf("tcp_rr: dial 127.0.0.1:%d: connection refused", port), "is `netscript serve` running?")
}

// TestHostDoesNotAnswer: a listener whose queue is full drops new SYNs, as
// a host that does not answer does; connect_timeout, not the kernel, ends
// the connect, and the error names it.
func TestHostDoesNotAnswer(t *testing.T) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, _ := unix.Getsockname(fd)
	port := sa.(*unix.SockaddrInet4).Port
	// Fill the accept queue; nobody ever accepts.
	for i := 0; i < 4; i++ {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			defer c.Close()
		}
	}
	// The kernel alone would retry the SYN for about two minutes
	// (tcp_syn_retries 6): a run that ends before the hang guard with the
	// error naming the timeout, and not before the timeout could fire, is
	// one that connect_timeout ended.
	r := netscript(t, 60*time.Second, "-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, duration=1, connect_timeout='1s')", port))
	oneLine(t, r, 1, fmt.Sprintf("dial 127.0.0.1:%d: no answer within 1s", port))
	if r.took < time.Second {
		t.Errorf("ended after %v, before its 1 s connect timeout could fire", r.took)
	}
}

// TestOtherProtocolVersion: a server of another version is named as such.
func TestOtherProtocolVersion(t *testing.T) {
	port := fakeServer(t, func(c net.Conn) {
		c.Write(proto.AppendPreamble(nil, 99))
		b, _ := proto.AppendFrame(nil, proto.TypeError, proto.Error{Message: "protocol version 1 not supported"})
		c.Write(b)
		time.Sleep(time.Second)
	})
	r := netscript(t, 20*time.Second, "-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, duration=1)", port))
	oneLine(t, r, 1, fmt.Sprintf("protocol version mismatch: peer speaks version 99, this netscript speaks version %d", proto.Version))
}

// TestNotNetscript: a port that speaks something else.
func TestNotNetscript(t *testing.T) {
	port := fakeServer(t, func(c net.Conn) {
		c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
		time.Sleep(time.Second)
	})
	r := netscript(t, 20*time.Second, "-c", fmt.Sprintf("tcp_crr(host='127.0.0.1', port=%d, duration=1)", port))
	oneLine(t, r, 1, fmt.Sprintf(`tcp_crr: 127.0.0.1:%d is an SSH server (it greets with "SSH-2.0-OpenSSH_9.2"), not a netscript daemon: check host and port`, port))
}

// TestNetserverWhereDaemonExpected: a script aimed at a real netserver
// without server="netserver" is told, in one line, what answered and
// which option runs the test against it.
func TestNetserverWhereDaemonExpected(t *testing.T) {
	port := netservertest.Start(t, "127.0.0.1")
	r := netscript(t, 60*time.Second, "-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, duration=1)", port))
	oneLine(t, r, 1, fmt.Sprintf(`tcp_rr: 127.0.0.1:%d is a netserver (it answered netperf's DO_SYSINFO), not a netscript daemon: use server="netserver" (or netscript --server netserver)`, port))
}

// TestServerClosesMidTest: the server answers for a while, then closes its
// control connection. The client stops at once with a clear error that
// keeps what was measured, and exits non-zero.
func TestServerClosesMidTest(t *testing.T) {
	port := fakeServer(t, func(c net.Conn) {
		pc := proto.NewConn(c)
		if pc.Handshake(5*time.Second, true) != nil {
			return
		}
		key, err := pc.Authenticate(auth.Secret{}, true, 5*time.Second)
		if err != nil {
			return
		}
		var s proto.Setup
		if pc.Expect(proto.TypeSetup, &s, 5*time.Second) != nil {
			return
		}
		dl, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return
		}
		defer dl.Close()
		pc.Send(proto.TypeReady, proto.Ready{DataPort: dl.Addr().(*net.TCPAddr).Port}, time.Second)
		dc, err := dl.Accept()
		if err != nil {
			return
		}
		defer dc.Close()
		// The data connection's greeting: its tag, then the server's.
		if _, err := io.ReadFull(dc, make([]byte, auth.TagSize)); err != nil {
			return
		}
		dc.Write(auth.ConnAck(key))
		go func() { // answer every request byte with a response byte
			b := make([]byte, 1)
			for {
				if _, err := dc.Read(b); err != nil {
					return
				}
				dc.Write(b)
			}
		}()
		if pc.Expect(proto.TypeStart, &proto.Start{}, 5*time.Second) != nil {
			return
		}
		pc.Send(proto.TypeStarted, proto.Started{}, time.Second)
		time.Sleep(500 * time.Millisecond)
		c.Close()
	})
	r := netscript(t, 20*time.Second, "-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, duration=30)", port))
	oneLine(t, r, 1, "the server closed the control connection during the test", "measured before that:")
	if r.took > 15*time.Second { // a hang guard: the test is 30 s long
		t.Errorf("took %v to notice the server was gone", r.took)
	}
}

// TestServeAndScript: the README's walk-through against a separate daemon.
func TestServeAndScript(t *testing.T) {
	d := startDaemon(t, nil)
	r := netscript(t, 30*time.Second, "-c", fmt.Sprintf(
		"r = udp_rr(host='127.0.0.1', port=%d, burst=8, duration=0.5)\nprint(r.remote.transactions == r.transactions + r.discarded, r.throughput > 0)", d.port))
	if r.code != 0 || strings.TrimSpace(r.stdout) != "True True" {
		t.Fatalf("got %+v\nserver: %s", r, d.stderr.String())
	}
	if !strings.Contains(d.stderr.String(), "anyone who can reach it may use it") {
		t.Errorf("the daemon did not warn that it is open:\n%s", d.stderr.String())
	}
}

// TestArgs: NAME=VALUE pairs reach the script as the dict args.
func TestArgs(t *testing.T) {
	r := netscript(t, 10*time.Second, "-c", `print(args["a"], args["b"])`, "a=1", "b=x=y")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "1 x=y" {
		t.Fatalf("got %+v", r)
	}
}
