package embedded

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/client"
	"netscript/engine/limits"
	"netscript/engine/result"
	"netscript/engine/server"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/internal/leakcheck"
)

// childArg makes this test binary the server's side: Start runs it as
// `TESTBINARY childArg --quiet --embedded-fd 3 --listen ... --listen ...`,
// as it runs `netscript serve`.
const childArg = "embedded-child"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == childArg {
		os.Exit(child(os.Args[2:]))
	}
	os.Exit(leakcheck.Main(m)) // and nothing it started is left
}

// child is the server's side as cmd/netscript's serve runs it.
func child(args []string) int {
	fs := flag.NewFlagSet(childArg, flag.ContinueOnError)
	fs.Bool("quiet", false, "")
	fd := fs.Int("embedded-fd", -1, "")
	var listen []string
	fs.Func("listen", "", func(s string) error { listen = append(listen, s); return nil })
	if err := fs.Parse(args); err != nil {
		return 2
	}
	err := Serve(*fd, listen, func(tok auth.Token) *server.Server {
		return server.New(server.Config{Version: "test", Log: io.Discard, Limits: Limits(limits.Default()), Token: tok})
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

// start runs the server's side in a child process with tok.
func start(t *testing.T, tok auth.Token) *Process {
	t.Helper()
	p, err := Start([]string{os.Args[0], childArg}, tok)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// rr runs a short TCP_RR against p's IPv4 address, proving tok.
func rr(p *Process, tok auth.Token) (*result.Result, error) {
	ap, ok := p.Addr(sock.Auto)
	if !ok {
		return nil, fmt.Errorf("no address")
	}
	s := spec.Default(spec.TCPRR)
	s.Host, s.Port, s.Transactions = ap.Addr().String(), int(ap.Port()), 20
	return client.Run(context.Background(), s, client.Options{Token: tok})
}

// TestBothHalves runs Start against Serve in a real child process: the
// token the script sends is the one the server asks for, the addresses it
// reports are where it serves, and Close ends it.
func TestBothHalves(t *testing.T) {
	t.Setenv(auth.EnvToken, "") // the client's own fallback must find nothing
	tok := auth.Token("correct horse battery staple")
	p := start(t, tok)
	if _, ok := p.Addr(sock.Inet); !ok {
		t.Fatalf("no IPv4 address: %v", p.addrs)
	}
	if r, err := rr(p, tok); err != nil || r.Transactions == 0 {
		t.Fatalf("a test proving the token: %v, %v", r, err)
	}
	if _, err := rr(p, nil); err == nil || !strings.Contains(err.Error(), "requires a token") {
		t.Errorf("a test without the token: %v, want the server to require one", err)
	}
	if _, err := rr(p, auth.Token("another sixteen bytes or more")); err == nil || !strings.Contains(err.Error(), "authentication failed") {
		t.Errorf("a test with another token: %v", err)
	}
	// The token reached the child through the socket only.
	pid := strconv.Itoa(p.Pid())
	for _, f := range []string{"cmdline", "environ"} {
		b, err := os.ReadFile(filepath.Join("/proc", pid, f))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, tok) || bytes.Contains(b, []byte(fmt.Sprintf("%x", []byte(tok)))) || bytes.Contains(b, []byte(auth.EnvToken+"=")) {
			t.Errorf("the token is in the server's %s: %q", f, b)
		}
	}
	p.Close()
	if p.Alive() {
		t.Error("the server still runs after Close")
	}

	// No token: an open server, which a test without one may use.
	open := start(t, nil)
	if r, err := rr(open, nil); err != nil || r.Transactions == 0 {
		t.Fatalf("a test against the open server: %v, %v", r, err)
	}
}

// TestProtocolErrors: each way the conversation can go wrong is an error
// that says what the other side said, never a hang.
func TestProtocolErrors(t *testing.T) {
	addrs := []struct{ said, want string }{
		// A server that ends before it listened.
		{"", "the server process ended before it listened"},
		// Something that is not FAMILY ADDR:PORT.
		{"hello\n", `the server process said "hello"`},
		{"inet 127.0.0.1\n", `the server process said "inet 127.0.0.1"`},
		{"ipx 127.0.0.1:1\n", `the server process said "ipx 127.0.0.1:1"`},
		// Ready without IPv4: the default family needs it.
		{"inet6 [::1]:5\nready\n", "did not listen on 127.0.0.1"},
	}
	for _, c := range addrs {
		if _, err := readAddrs(strings.NewReader(c.said)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("server said %q: %v, want %q", c.said, err, c.want)
		}
	}
	got, err := readAddrs(strings.NewReader("inet 127.0.0.1:5\ninet6 [::1]:6\nready\n"))
	if err != nil || got[sock.Auto].Port() != 5 || got[sock.Inet6].Port() != 6 {
		t.Errorf("good addresses: %v, %v", got, err)
	}

	tokens := []struct{ said, want string }{
		{"", "waiting for the token: unexpected EOF"},
		{"hello\n", `the script said "hello", not the token`},
		{"token zz\n", "not hex"},
		{"token " + strings.Repeat("ab", 2*auth.MaxTokenSize) + "\n", "a line longer than"},
	}
	for _, c := range tokens {
		if _, err := readToken(bufio.NewReader(strings.NewReader(c.said))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("script said %.40q: %v, want %q", c.said, err, c.want)
		}
	}
	// What writeToken writes, readToken reads back.
	for _, tok := range []auth.Token{nil, auth.Token("a token with spaces\nand a newline")} {
		var b bytes.Buffer
		writeToken(&b, tok)
		back, err := readToken(bufio.NewReader(&b))
		if err != nil || !bytes.Equal(back, tok) || (tok == nil) != (back == nil) {
			t.Errorf("token %q came back as %q, %v", tok, back, err)
		}
	}
}

// TestServerGone: a server process that dies is seen as not alive, and a
// command that is no server fails to start with its own words.
func TestServerGone(t *testing.T) {
	p := start(t, nil)
	proc, err := os.FindProcess(p.Pid())
	if err != nil {
		t.Fatal(err)
	}
	proc.Kill()
	deadline := time.Now().Add(10 * time.Second)
	for p.Alive() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if p.Alive() {
		t.Fatal("a killed server is still alive")
	}
	if _, err := Start([]string{"/bin/true"}, nil); err == nil || !strings.Contains(err.Error(), "embedded server: the server process ended before it listened") {
		t.Errorf("a command that says nothing: %v", err)
	}
	if _, err := Start([]string{"/nonexistent/netscript"}, nil); err == nil || !strings.Contains(err.Error(), "embedded server: start /nonexistent/netscript") {
		t.Errorf("a missing binary: %v", err)
	}
}
