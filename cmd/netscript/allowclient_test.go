package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/engine/proto"
	"netscript/engine/sock/socktest"
)

// TestAllowClientFlag: --allow-client alone (or =netscript, as the
// release before took it) runs client sides toward netscript daemons, a
// boolean turns it on or off, and any other value, any among them, is
// kept to be reported.
func TestAllowClientFlag(t *testing.T) {
	for _, c := range []struct {
		set []string
		on  bool
		str string
		bad string
	}{
		{nil, false, "false", ""},
		{[]string{"true"}, true, "true", ""},
		{[]string{"netscript"}, true, "true", ""},
		{[]string{"any"}, false, "false", "any"},
		{[]string{"any", "false"}, false, "false", ""},
		{[]string{"0"}, false, "false", ""},
		{[]string{"anywhere"}, false, "false", "anywhere"},
		{[]string{"anywhere", "true"}, true, "true", ""},
	} {
		var a allowClient
		for _, v := range c.set {
			if err := a.Set(v); err != nil {
				t.Fatal(err)
			}
		}
		if a.on != c.on || a.String() != c.str || a.bad != c.bad {
			t.Errorf("%q: %+v (%s), want on %v, %s, bad %q", c.set, a, a.String(), c.on, c.str, c.bad)
		}
	}
}

// TestServeAllowClient: real daemons. Without --allow-client a script's
// client= test is refused in one line naming the flag (exit 1); with it the
// test runs end to end, is refused with control=False (no flag lifts that:
// traffic with no handshake goes only where the person running netscript
// sends it) or a source address that is not the daemon's, and sends a port
// that is not a netscript daemon its preamble and nothing more. Without a
// token the daemon warns at start, even when quiet, that anyone may use it
// so; with one it does not, and the test's server must hold the token too.
func TestServeAllowClient(t *testing.T) {
	standing := socktest.Reserve(t, false)
	off := startDaemon(t, nil)
	on := startDaemon(t, nil, "--allow-client")
	target := startDaemon(t, nil)
	var read atomic.Int64
	http := fakeServer(t, func(c net.Conn) {
		b := make([]byte, proto.PreambleSize)
		n, _ := io.ReadFull(c, b)
		read.Add(int64(n))
		io.WriteString(c, "HTTP/1.1 400 Bad Request\r\n\r\n")
		m, _ := io.Copy(io.Discard, c)
		read.Add(m)
	})

	test := func(d *daemonProc, opts string) string {
		return fmt.Sprintf(`r = tcp_rr(host="127.0.0.1", client="127.0.0.1:%d", transactions=20%s)
print(r.transactions > 0, r.remote.transactions == r.transactions + r.discarded, r.config.client)`, d.port, opts)
	}
	toTarget := fmt.Sprintf(", port=%d", target.port)
	r := netscriptEnv(t, 60*time.Second, nil, "-c", test(on, toTarget))
	if want := fmt.Sprintf("True True 127.0.0.1:%d\n", on.port); r.code != 0 || r.stdout != want {
		t.Errorf("with --allow-client: %+v, want %q\ndaemon:\n%s", r, want, on.stderr.String())
	}
	for _, c := range []struct {
		name string
		d    *daemonProc
		opts string
		want string
	}{
		{"off", off, toTarget, fmt.Sprintf("tcp_rr: client 127.0.0.1:%d: this daemon does not run the client side of tests for scripts (client=): "+
			"its operator can allow it with netscript serve --allow-client", off.port)},
		{"control=False", on, fmt.Sprintf(", control=False, data_port=%d", standing),
			"client: this daemon runs the client side of tests only toward netscript daemons, whose every data port shows the test's tag before any data is sent; control=False sends straight to a port with no handshake"},
		{"foreign source", on, toTarget + `, local="198.18.0.99"`,
			"client: this daemon will not run the test: local: 198.18.0.99 is not an address of this daemon's interfaces"},
		{"not a netscript daemon", on, fmt.Sprintf(", port=%d", http),
			fmt.Sprintf(`tcp_rr: 127.0.0.1:%d is an HTTP server (it answered "HTTP/1.1 400 Bad Request"), not a netscript daemon`, http)},
	} {
		oneLine(t, netscriptEnv(t, 60*time.Second, nil, "-c", "x = 1\n"+test(c.d, c.opts)), 1, "<command-line>:2:", c.want)
	}
	time.Sleep(300 * time.Millisecond) // the fake server's last reads
	if n := read.Load(); n != int64(proto.PreambleSize) {
		t.Errorf("the port that is not a netscript daemon read %d bytes, want the %d of the preamble", n, proto.PreambleSize)
	}

	const warning = "warning: --allow-client and no token: this daemon runs the client side of tests toward netscript daemons for anyone who can reach it"
	if s := on.stderr.String(); !strings.Contains(s, warning) {
		t.Errorf("--allow-client without a token did not warn:\n%s", s)
	}
	if s := off.stderr.String(); strings.Contains(s, "warning") || !strings.Contains(s, "--allow-client") {
		t.Errorf("without --allow-client: a warning, or the refusal not logged:\n%s", s)
	}
	quiet := &syncBuffer{}
	qcmd := exec.Command(bin, "serve", "--quiet", "--allow-client", "--listen", "127.0.0.1:0")
	qcmd.Env, qcmd.Stderr = cleanEnv(), quiet
	if err := childproc.Start(qcmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { qcmd.Process.Kill(); qcmd.Wait() })
	waitFor(t, 30*time.Second, "the quiet daemon's warning", func() bool { return strings.Contains(quiet.String(), warning) })

	// With a token: no warning; the daemon proves it to the test's server.
	good := filepath.Join(t.TempDir(), "token")
	os.WriteFile(good, []byte("correct horse battery staple\n"), 0o600)
	guarded := startDaemon(t, nil, "--allow-client", "--token-file", good)
	guardedTarget := startDaemon(t, nil, "--token-file", good)
	r = netscriptEnv(t, 60*time.Second, nil, "--token-file", good, "-c", test(guarded, fmt.Sprintf(", port=%d", guardedTarget.port)))
	if r.code != 0 || !strings.HasPrefix(r.stdout, "True True ") {
		t.Errorf("with a token: %+v\ndaemon:\n%s", r, guarded.stderr.String())
	}
	oneLine(t, netscriptEnv(t, 60*time.Second, nil, "--token-file", good, "-c", test(guarded, toTarget)), 1,
		"this server asks for no token, so it cannot prove it holds yours")
	if s := guarded.stderr.String(); strings.Contains(s, "warning") || strings.Contains(s, "anyone") ||
		!strings.Contains(s, "runs the client side of tests toward netscript daemons for clients that hold the token from "+good) {
		t.Errorf("--allow-client with a token, the start lines:\n%s", s)
	}
}

// TestServeAllowClientUsage: a value --allow-client does not take, or one
// given after a space, is a usage error in one line that says how to
// write it; =any, which the release before took, says why it is no more.
func TestServeAllowClientUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--allow-client=anywhere"}, "netscript serve: --allow-client=anywhere: want --allow-client (toward netscript daemons) or --allow-client=false"},
		{[]string{"--allow-client=any"}, "netscript serve: --allow-client=any is no more: a daemon does not send traffic with no handshake (control=False) on a script's say-so"},
		{[]string{"--allow-client", "false"}, `netscript serve: unexpected argument "false" (a value of --allow-client goes after '=': --allow-client=false)`},
	} {
		r := netscriptEnv(t, 10*time.Second, nil, append([]string{"serve", "--listen", "127.0.0.1:0"}, c.args...)...)
		oneLine(t, r, exitUsage, c.want)
	}
}
