package agent_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"netscript/engine/agent"
	"netscript/engine/auth"
	"netscript/engine/client"
	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/proto/manual"
	"netscript/engine/server"
	"netscript/engine/sock/socktest"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// startAgent is a daemon on loopback whose client sides ag runs (an Off
// refuses them).
func startAgent(t *testing.T, ag server.ClientAgent) (*server.Server, netip.AddrPort) {
	t.Helper()
	srv := server.New(server.Config{Version: "test", Agent: ag})
	a, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, netip.MustParseAddrPort(a.String())
}

// tcpSink is a plain TCP listener on loopback, not a netscript daemon: it
// counts the connections it accepts and every byte it reads, and answers
// each connection as answer says (nil: it says nothing and reads until the
// peer closes).
type tcpSink struct {
	port  int
	conns atomic.Int64
	bytes atomic.Int64
	wg    sync.WaitGroup
}

func newTCPSink(t *testing.T, answer func(c net.Conn)) *tcpSink {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &tcpSink{port: l.Addr().(*net.TCPAddr).Port}
	var open sync.Map
	t.Cleanup(func() {
		l.Close()
		open.Range(func(k, _ any) bool { k.(net.Conn).Close(); return true })
		s.wg.Wait()
	})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			open.Store(c, true)
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				if answer != nil {
					// What a peer sends before it reads an answer.
					buf := make([]byte, proto.PreambleSize)
					n, _ := io.ReadFull(c, buf)
					s.bytes.Add(int64(n))
					answer(c)
				}
				n, _ := io.Copy(io.Discard, c)
				s.bytes.Add(n)
			}()
		}
	}()
	return s
}

// received is the bytes the sink read, once every connection it accepted
// has ended (or after a generous wait).
func (s *tcpSink) received(t *testing.T) int64 {
	t.Helper()
	done := make(chan struct{})
	go func() {
		// Connections end when the peer closes them; the listener's own
		// goroutine runs until cleanup, so poll the count settling.
		prev := int64(-1)
		for prev != s.bytes.Load() {
			prev = s.bytes.Load()
			time.Sleep(200 * time.Millisecond)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	return s.bytes.Load()
}

// udpSink is a UDP socket on a loopback port where no TCP listener is (the
// port is held for TCP, so a connection to it is refused); it counts the
// datagrams it receives.
type udpSink struct {
	port  int
	count atomic.Int64
	bytes atomic.Int64
}

func newUDPSink(t *testing.T) *udpSink {
	t.Helper()
	// The UDP port of the number the kernel chose for TCP may be another
	// program's: then another (the held TCP ports stay held till the end).
	var port int
	var c *net.UDPConn
	for try := 0; c == nil; try++ {
		port = socktest.Reserve(t, false)
		var err error
		c, err = net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))))
		if err != nil && (!errors.Is(err, syscall.EADDRINUSE) || try == 20) {
			t.Fatal(err)
		}
	}
	s := &udpSink{port: port}
	done := make(chan struct{})
	t.Cleanup(func() { c.Close(); <-done })
	go func() {
		defer close(done)
		buf := make([]byte, 1<<16)
		for {
			n, _, err := c.ReadFromUDP(buf)
			if err != nil {
				return
			}
			s.count.Add(1)
			s.bytes.Add(int64(n))
		}
	}()
	return s
}

// datagrams is what the sink received, after time for stragglers.
func (s *udpSink) datagrams() int64 {
	time.Sleep(300 * time.Millisecond)
	return s.count.Load()
}

// TestOff: a daemon started without --allow-client refuses to run a
// test's client side (the daemon's front end names the flag:
// internal/serveadvice), and sends nothing toward the test's server.
func TestOff(t *testing.T) {
	_, a := startAgent(t, agent.Off{})
	sink := newTCPSink(t, nil)
	s := spec.Default(spec.TCPStream)
	s.Host, s.Port, s.Duration, s.Client = "127.0.0.1", sink.port, time.Second, a.String()
	_, err := agent.Run(context.Background(), s, client.Options{})
	if err == nil || !strings.HasSuffix(err.Error(), "client "+a.String()+": "+agent.ErrNotAllowed.Error()) {
		t.Fatalf("got %v, want the refusal", err)
	}
	if n := sink.conns.Load(); n != 0 {
		t.Errorf("the test's server got %d connections", n)
	}
}

// TestNoHandshakeNoTraffic: a daemon that runs client sides
// (--allow-client) refuses a test with no netscript handshake, control=False
// (which would send straight to any port) or against a netserver (whose data
// ports show no tag), before sending anything, in one line no flag lifts.
// (--allow-client=any, which let a script aim such a test anywhere, is no
// more.)
func TestNoHandshakeNoTraffic(t *testing.T) {
	th := &workload.Threads{}
	_, d := startAgent(t, &agent.Agent{Threads: th})
	standing := server.New(server.Config{Version: "test", Threads: th})
	t.Cleanup(func() { standing.Close() })
	ep, err := standing.Data(server.DataConfig{Workload: spec.TCPRR, Addr: netip.MustParseAddrPort("127.0.0.1:0")})
	if err != nil {
		t.Fatal(err)
	}
	udp, tcp := newUDPSink(t), newTCPSink(t, nil)
	for _, c := range []struct {
		name string
		w    *spec.Workload
		port int
		set  func(*spec.Spec)
		want string
	}{
		{"udp_stream to a UDP port", spec.UDPStream, udp.port, nil, "control=False sends straight to a port with no handshake"},
		{"tcp_stream to a TCP port", spec.TCPStream, tcp.port, nil, "control=False sends straight to a port with no handshake"},
		{"tcp_rr to a standing endpoint", spec.TCPRR, int(ep.Port()), nil, "control=False"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := spec.Default(c.w)
			s.Host, s.NoControl, s.DataPort, s.Duration, s.Client = "127.0.0.1", true, c.port, 300*time.Millisecond, d.String()
			if c.set != nil {
				c.set(&s)
			}
			_, err := agent.Run(context.Background(), s, client.Options{Threads: th})
			if err == nil || !strings.Contains(err.Error(), "client: "+agent.ErrOnlyNetscript.Error()) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	// A netserver test: a script's own side refuses client= with one, so
	// the request is made by hand, as a hostile script would.
	ns := spec.Default(spec.UDPStream)
	ns.Host, ns.Port, ns.Server, ns.Duration = "127.0.0.1", tcp.port, spec.ServerNetserver, 300*time.Millisecond
	pc, _, err := manual.Login(d.String(), nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	pc.Send(proto.TypeRunClient, proto.RunClient{Test: proto.TestSpecFrom(&ns)}, time.Second)
	if err := pc.Expect(proto.TypeClientReady, &proto.ClientReady{}, 10*time.Second); err == nil ||
		!strings.Contains(err.Error(), agent.ErrOnlyNetscript.Error()+"; a netserver's do not") {
		t.Errorf("a netserver test: %v", err)
	}
	if n := udp.datagrams(); n != 0 {
		t.Errorf("the UDP port got %d datagrams", n)
	}
	if n, b := tcp.conns.Load(), tcp.received(t); n != 0 || b != 0 {
		t.Errorf("the TCP port got %d connections, %d bytes", n, b)
	}
}

// TestTargetNotNetscript: a test with a control connection sends data only
// once the control handshake with its server has completed. Aimed at a
// plain TCP listener that is silent, answers something else or hangs up,
// the daemon's test fails with an error that says what the port did, and
// the listener reads the preamble the handshake sent and not one byte
// more; aimed at a UDP port (no TCP listener there) or at a TCP listener
// with the data port a UDP one, no datagram arrives. A netscript daemon
// whose token exchange fails gets no test either.
func TestTargetNotNetscript(t *testing.T) {
	th := &workload.Threads{}
	_, a := startAgent(t, &agent.Agent{Threads: th})
	tok := auth.Token("correct horse battery staple")
	guarded := server.New(server.Config{Version: "test", Threads: th, Token: tok})
	t.Cleanup(func() { guarded.Close() })
	g, err := guarded.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gport := g.(*net.TCPAddr).Port
	http := func(c net.Conn) { io.WriteString(c, "HTTP/1.1 400 Bad Request\r\n\r\n") }
	hangUp := func(c net.Conn) { c.Close() }
	for _, c := range []struct {
		name    string
		w       *spec.Workload
		answer  func(net.Conn) // the TCP listener's; nil: silent
		udpData bool           // the data port is a UDP sink's
		udpCtrl bool           // the control port is a UDP sink's
		token   bool           // the server is a netscript daemon with a token
		want    string
	}{
		{"silent listener", spec.TCPStream, nil, false, false, false, "said nothing in"},
		{"an HTTP server", spec.TCPStream, http, false, false, false,
			`is an HTTP server (it answered "HTTP/1.1 400 Bad Request"), not a netscript daemon; a daemon runs a test's client side only toward a netscript daemon`},
		{"hangs up", spec.TCPRR, hangUp, false, false, false, "closed the connection without a word, not a netscript daemon"},
		{"tcp_crr to an HTTP server", spec.TCPCRR, http, false, false, false, "not a netscript daemon"},
		{"udp_stream to a UDP port", spec.UDPStream, nil, false, true, false, "connection refused"},
		{"udp_stream, data port UDP", spec.UDPStream, http, true, false, false, "not a netscript daemon"},
		{"udp_rr, data port UDP", spec.UDPRR, nil, true, false, false, "said nothing in"},
		{"a daemon with a token", spec.UDPStream, nil, true, false, true, "this server requires a token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // a silent listener takes the connect timeout's 5 s
			udp, tcp := newUDPSink(t), newTCPSink(t, c.answer)
			s := spec.Default(c.w)
			s.Host, s.Port, s.Duration, s.Client = "127.0.0.1", tcp.port, time.Second, a.String()
			switch {
			case c.udpCtrl:
				s.Port = udp.port
			case c.token:
				s.Port = gport
			}
			if c.udpData {
				s.DataPort = udp.port
			}
			start := time.Now()
			_, err := agent.Run(context.Background(), s, client.Options{Threads: th})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if !strings.Contains(err.Error(), "client "+a.String()+": ") {
				t.Errorf("the error does not name the daemon: %v", err)
			}
			t.Logf("%v after %v", err, time.Since(start).Round(time.Millisecond))
			var te *client.TestError
			if errors.As(err, &te) {
				t.Errorf("a test ran: %+v", te.Partial)
			}
			wantBytes := int64(proto.PreambleSize)
			if c.udpCtrl || c.token {
				wantBytes = 0 // the TCP listener is not the test's server
			}
			if b := tcp.received(t); b != wantBytes {
				t.Errorf("the TCP listener read %d bytes, want %d (the preamble)", b, wantBytes)
			}
			if n := udp.datagrams(); n != 0 {
				t.Errorf("the UDP port got %d datagrams", n)
			}
		})
	}
}

// TestSources: every source address a test binds (local, each flow's)
// must be one of the daemon's own; any other is refused with the address
// named before the daemon connects anywhere, so a script cannot make it
// send as someone else. Its own addresses, the rest of loopback's
// 127.0.0.0/8 and the unspecified address run.
func TestSources(t *testing.T) {
	const foreign = "198.18.0.99"
	if own, err := net.InterfaceAddrs(); err == nil {
		for _, a := range own {
			if n, ok := a.(*net.IPNet); ok && n.IP.String() == foreign {
				t.Skipf("%s is this machine's", foreign)
			}
		}
	}
	th := &workload.Threads{}
	_, a := startAgent(t, &agent.Agent{Threads: th})
	b := startDaemon(t, th, limits.Limits{})
	sink := newTCPSink(t, nil)
	for _, c := range []struct {
		name string
		set  func(*spec.Spec)
		want string // "" if it runs
	}{
		{"local", func(s *spec.Spec) { s.Local = foreign }, "local: " + foreign + " is not an address of this daemon's interfaces"},
		{"mapped", func(s *spec.Spec) { s.Local = "::ffff:" + foreign }, "local: ::ffff:" + foreign + " is not an address"},
		{"a flow's local", func(s *spec.Spec) { s.Flows, s.Locals = 2, []string{"127.0.0.1", foreign} }, "local: " + foreign + " is not"},
		{"tcp_crr", func(s *spec.Spec) { *s = spec.Default(spec.TCPCRR); s.Local = foreign }, "local: " + foreign + " is not"},
		{"udp_stream", func(s *spec.Spec) { *s = spec.Default(spec.UDPStream); s.Local = foreign }, "local: " + foreign + " is not"},
		{"own", func(s *spec.Spec) { s.Local = "127.0.0.1" }, ""},
		{"loopback's", func(s *spec.Spec) { s.Flows, s.Locals = 2, []string{"127.0.0.2", "127.0.0.3"} }, ""},
		{"unspecified", func(s *spec.Spec) { s.Local = "0.0.0.0" }, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := spec.Default(spec.TCPRR)
			c.set(&s)
			s.Host, s.Port, s.Duration, s.Client = "127.0.0.1", sink.port, 300*time.Millisecond, a.String()
			if c.want == "" {
				s.Port = int(b.Port())
			}
			res, err := agent.Run(context.Background(), s, client.Options{Threads: th})
			if c.want == "" {
				if err != nil || res == nil || res.Transactions == 0 {
					t.Fatalf("%v, %+v", err, res)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) ||
				!strings.Contains(err.Error(), "client "+a.String()+": client: this daemon will not run the test") {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	if n := sink.conns.Load(); n != 0 {
		t.Errorf("the refused tests' server got %d connections", n)
	}
}
