package client_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/client/netservertest"
	"netscript/engine/proto"
	"netscript/engine/spec"
)

// listener serves each connection to 127.0.0.1 at a kernel-chosen port
// with serve, and closes it and them when the test ends.
func listener(t *testing.T, serve func(c net.Conn)) netip.AddrPort {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return netip.MustParseAddrPort(l.Addr().String())
}

// silent accepts and never writes; it reads what comes until the peer
// closes, as a listener that waits for a request would.
func silent(c net.Conn) { io.Copy(io.Discard, c) }

// tlsConfig is a server's TLS configuration with httptest's certificate.
func tlsConfig(t *testing.T) *tls.Config {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.StartTLS()
	cfg := srv.TLS.Clone()
	srv.Close()
	return cfg
}

// TestNamePeer: a test aimed at whatever answers at host:port when a
// netscript daemon was expected names it in one line with what it is,
// within the connect timeout, from its first bytes or, when it says
// nothing, from what it answers to the probes' questions: the real
// netserver 2.7.1, Go's net/http server, a crypto/tls server, an HTTPS
// server, an SSH banner, a silent listener and one that closes at once.
func TestNamePeer(t *testing.T) {
	httpSrv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(httpSrv.Close)
	httpsSrv := httptest.NewUnstartedServer(http.NotFoundHandler())
	httpsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the probes' handshakes that fail
	httpsSrv.StartTLS()
	t.Cleanup(httpsSrv.Close)
	cfg := tlsConfig(t)
	tlsAddr := listener(t, func(c net.Conn) {
		tc := tls.Server(c, cfg)
		if tc.Handshake() == nil {
			io.Copy(tc, tc) // an echo service over TLS
		}
	})
	np := netservertest.Start(t, "127.0.0.1")
	for _, c := range []struct {
		name string
		addr netip.AddrPort
		kind client.PeerKind
		want string
	}{
		{"netserver", netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(np)), client.PeerNetserver,
			"is a netserver (it answered netperf's DO_SYSINFO), not a netscript daemon"},
		{"net/http", netip.MustParseAddrPort(strings.TrimPrefix(httpSrv.URL, "http://")), client.PeerHTTP,
			`is an HTTP server (it answered "HTTP/1.0 404 Not Found"), not a netscript daemon`},
		{"net/http with TLS", netip.MustParseAddrPort(strings.TrimPrefix(httpsSrv.URL, "https://")), client.PeerTLS,
			"not a netscript daemon"},
		{"crypto/tls", tlsAddr, client.PeerTLS, "is a TLS server (it answered a TLS ClientHello), not a netscript daemon"},
		{"ssh banner", listener(t, func(c net.Conn) {
			io.WriteString(c, "SSH-2.0-OpenSSH_9.6\r\n")
			silent(c)
		}), client.PeerSSH, `is an SSH server (it greets with "SSH-2.0-OpenSSH_9.6"), not a netscript daemon`},
		{"silent", listener(t, silent), client.PeerSilent,
			"said nothing in 5s, nor answered a netserver, HTTP or TLS probe: a silent listener, not a netscript daemon"},
		// A close with our preamble unread is a reset.
		{"closes", listener(t, func(net.Conn) {}), client.PeerClosed, "the connection without a word, not a netscript daemon"},
		{"other bytes", listener(t, func(c net.Conn) {
			io.WriteString(c, "220 smtp.example ESMTP\r\n")
			silent(c)
		}), client.PeerUnknown, `answered 24 bytes ("220 smtp.example ESMTP") that are no netscript greeting, not a netscript daemon`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// Dial is bounded by the connect timeout; the test's own
			// deadline only guards against a hang.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			pc, _, err := client.Dial(ctx, c.addr, spec.DefaultConnectTimeout, nil)
			if err == nil {
				pc.Close()
				t.Fatal("no error")
			}
			var pe *client.PeerError
			if !errors.As(err, &pe) {
				t.Fatalf("%v: not a *client.PeerError", err)
			}
			if pe.Kind != c.kind || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.addr.String()+" ") {
				t.Errorf("got %q (kind %d), want %q (kind %d) after the address", err, pe.Kind, c.want, c.kind)
			}
			if !errors.Is(err, proto.ErrNotNetscript) {
				t.Errorf("%v is not a proto.ErrNotNetscript", err)
			}
			t.Log(err)
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%q is more than one line", err)
			}
		})
	}
}

// TestNamePeerDaemon: a netscript daemon is still greeted and tested as
// one, and a test against it runs.
func TestNamePeerDaemon(t *testing.T) {
	addr := startServer(t, nil)
	s := spec.Default(spec.TCPRR)
	s.Host, s.Port, s.Transactions, s.Duration = "127.0.0.1", int(addr.Port()), 10, 0
	r, err := client.Run(context.Background(), s, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Transactions != 10 {
		t.Errorf("%d transactions, want 10", r.Transactions)
	}
}

// TestNamePeerNoProbes: a client told not to probe (a daemon running the
// client side for a script) sends a silent far end its preamble and
// nothing else, on one connection, and still names it as silent.
func TestNamePeerNoProbes(t *testing.T) {
	var mu sync.Mutex
	var got []string
	addr := listener(t, func(c net.Conn) {
		b, _ := io.ReadAll(c)
		mu.Lock()
		got = append(got, string(b))
		mu.Unlock()
	})
	s := spec.Default(spec.TCPRR)
	s.Host, s.Port, s.ConnectTimeout = "127.0.0.1", int(addr.Port()), time.Second
	_, err := client.Run(context.Background(), s, client.Options{NoProbes: true})
	var pe *client.PeerError
	if !errors.As(err, &pe) || pe.Kind != client.PeerSilent || !strings.Contains(err.Error(), "said nothing in") {
		t.Fatalf("got %v, want a silent far end", err)
	}
	want := string(proto.AppendPreamble(nil, proto.Version))
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := fmt.Sprintf("%q", got)
		done := len(got) > 0
		mu.Unlock()
		if done {
			if n != fmt.Sprintf("%q", []string{want}) {
				t.Errorf("the far end got %s, want only the preamble %q on one connection", n, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the far end's connection never closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// slowGreeter is a proxy to the daemon at to that holds back the first
// bytes the daemon sends on each connection for delay, as a daemon slow to
// greet would; it counts the connections it forwards.
func slowGreeter(t *testing.T, to netip.AddrPort, delay time.Duration, conns *atomic.Int64) netip.AddrPort {
	return listener(t, func(c net.Conn) {
		conns.Add(1)
		d, err := net.Dial("tcp", to.String())
		if err != nil {
			return
		}
		defer d.Close()
		go func() {
			io.Copy(d, c)
			d.(*net.TCPConn).CloseWrite()
		}()
		time.Sleep(delay)
		io.Copy(c, d)
	})
}

// TestNamePeerSlowDaemon: a netscript daemon that greets after the quiet
// spell that starts the probes is still a netscript daemon: the test runs,
// and the probes it was asked (on connections of their own) did it no
// harm.
func TestNamePeerSlowDaemon(t *testing.T) {
	var conns atomic.Int64
	addr := slowGreeter(t, startServer(t, nil), 2*time.Second, &conns)
	s := spec.Default(spec.TCPRR)
	s.Host, s.Port, s.Transactions, s.Duration = "127.0.0.1", int(addr.Port()), 10, 0
	s.ConnectTimeout = 8 * time.Second // probes after 1.6 s, the greeting at 2 s
	r, err := client.Run(context.Background(), s, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Transactions != 10 {
		t.Errorf("%d transactions, want 10", r.Transactions)
	}
	t.Logf("%d connections reached the daemon", conns.Load())
}
