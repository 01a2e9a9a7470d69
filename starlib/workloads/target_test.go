package workloads_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/sock"
	"netscript/internal/startest"
	"netscript/session"
	"netscript/starlib"
	"netscript/starlib/values"
)

// TestHostPort runs tests against the embedded server named by its
// address as host="ADDR:PORT" and host="[v6]:PORT", as client= takes it.
func TestHostPort(t *testing.T) {
	th, env := startest.NewThread(t)
	ap, err := env.Embedded(sock.Inet)
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{
		fmt.Sprintf(`r = tcp_rr(host=%q, transactions=10)`, ap.String()),
		fmt.Sprintf(`r = tcp_rr(host=%q, port=%d, transactions=10)`, ap.String(), ap.Port()),
	}
	if ap6, err := env.Embedded(sock.Inet6); err == nil {
		codes = append(codes, fmt.Sprintf(`r = tcp_rr(host=%q, transactions=10)`, ap6.String()))
	}
	for _, code := range codes {
		g, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "t.star", code, starlib.Predeclared())
		if err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		r := g["r"].(*values.Record)
		if n, _ := r.Attr("transactions"); n.String() != "10" {
			t.Errorf("%s: %s transactions, want 10", code, n)
		}
	}
}

// TestTarget checks that session.Session.Target aims calls without host at it, and
// that a call naming host keeps it (and then its own port).
func TestTarget(t *testing.T) {
	th, env := startest.NewThread(t)
	ap, err := env.Embedded(sock.Inet)
	if err != nil {
		t.Fatal(err)
	}
	env.Target = session.Target{Host: ap.Addr().String(), Port: int(ap.Port())}
	// No host: the target, which is the embedded server's address given
	// as a remote host, so the result names it.
	g, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "t.star", `r = tcp_rr(transactions=5)`, starlib.Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := g["r"].(*values.Record).Attr("config")
	host, _ := cfg.(*values.Record).Attr("host")
	port, _ := cfg.(*values.Record).Attr("port")
	if host.String() != fmt.Sprintf("%q", ap.Addr()) || port.String() != fmt.Sprint(ap.Port()) {
		t.Errorf("config host %s port %s, want the target %s", host, port, ap)
	}
	// A script that names host keeps it, with netscript's default port.
	// Usually nothing listens there, and the error names the address; a
	// daemon someone runs on this machine's default port (a shared CI
	// host, outside any namespace) answers instead, and then the result
	// names it. Either way the target was not used.
	g, err = starlark.ExecFileOptions(starlib.FileOptions(), th, "t.star", `r = tcp_rr(host="127.0.0.2", transactions=5)`, starlib.Predeclared())
	if err == nil {
		cfg, _ := g["r"].(*values.Record).Attr("config")
		host, _ := cfg.(*values.Record).Attr("host")
		port, _ := cfg.(*values.Record).Attr("port")
		if host.String() != `"127.0.0.2"` || port.String() != "12866" {
			t.Errorf("named host: config host %s port %s, want 127.0.0.2 and 12866", host, port)
		}
	} else if !strings.Contains(err.Error(), "127.0.0.2:12866") {
		t.Errorf("named host: got %v, want a failure to reach 127.0.0.2:12866", err)
	}
	// The target's kind: netserver on a netscript daemon fails, naming it.
	env.Target = session.Target{Host: "127.0.0.1", Port: int(ap.Port()), Server: "netserver"}
	_, err = starlark.ExecFileOptions(starlib.FileOptions(), th, "t.star", `tcp_rr(transactions=5)`, starlib.Predeclared())
	if err == nil || !strings.Contains(err.Error(), netip.AddrPortFrom(ap.Addr(), ap.Port()).String()) {
		t.Errorf("netserver target: got %v, want an error naming %s", err, ap)
	}
}
