package server_test

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/client"
	"netscript/engine/proto"
	"netscript/engine/proto/manual"
	"netscript/engine/server"
	"netscript/engine/spec"
)

// keys holds the data key of each session a test opened by hand (ask).
var keys sync.Map

// keyOf is the data key of a session opened by ask.
func keyOf(pc *proto.Conn) []byte {
	k, _ := keys.Load(pc)
	return k.([]byte)
}

// greeted connects to a test's data port from src and greets it with the
// session's key, as a client's data connection does.
func greeted(t *testing.T, src, data string, key []byte) net.Conn {
	t.Helper()
	c := dialFrom(t, "tcp", src, data)
	if err := manual.GreetConn(c, key, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	return c
}

// greetedUDP is greeted for a UDP flow (flow's greeting).
func greetedUDP(t *testing.T, src, data string, key []byte, flow uint32) net.Conn {
	t.Helper()
	c := dialFrom(t, "udp", src, data)
	if err := manual.GreetDatagrams(c, key, flow, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	return c
}

// session opens an authenticated control session by hand and asks for a
// test; it returns the connection, the session key and the Ready answer.
func session(t *testing.T, ap netip.AddrPort, setup proto.Setup) (*proto.Conn, []byte, proto.Ready) {
	t.Helper()
	pc, key, ready, err := ask(t, ap, token, setup)
	if err != nil {
		t.Fatal(err)
	}
	if key == nil {
		t.Fatal("no session key from a server with a token")
	}
	return pc, key, ready
}

// ask opens a control session by hand, proving tok (nil: none), and asks
// for a test: the connection, the session key, and Ready or the server's
// refusal.
func ask(t *testing.T, ap netip.AddrPort, tok auth.Token, setup proto.Setup) (*proto.Conn, []byte, proto.Ready, error) {
	t.Helper()
	var ready proto.Ready
	c, err := net.Dial("tcp", ap.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	pc := proto.NewConn(c)
	if err := pc.Handshake(5*time.Second, false); err != nil {
		t.Fatal(err)
	}
	key, err := pc.Authenticate(auth.NewSecret(tok), false, 5*time.Second)
	if err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	keys.Store(pc, key)
	if err := pc.Send(proto.TypeSetup, setup, time.Second); err != nil {
		t.Fatal(err)
	}
	err = pc.Expect(proto.TypeReady, &ready, 5*time.Second)
	return pc, key, ready, err
}

// finish starts and stops the test and returns the server's counts.
func finish(t *testing.T, pc *proto.Conn, between func()) proto.Results {
	t.Helper()
	if err := pc.Send(proto.TypeStart, proto.Start{}, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := pc.Expect(proto.TypeStarted, &proto.Started{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	between()
	if err := pc.Send(proto.TypeStop, proto.Stop{}, time.Second); err != nil {
		t.Fatal(err)
	}
	var r proto.Results
	if err := pc.Expect(proto.TypeResults, &r, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	return r
}

// rr does n one-byte transactions on c.
func rr(t *testing.T, c net.Conn, n int) {
	t.Helper()
	b := make([]byte, 1)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	for i := 0; i < n; i++ {
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(b); err != nil {
			t.Fatal(err)
		}
	}
}

// dialFrom connects to addr from the source address src.
func dialFrom(t *testing.T, network, src, addr string) net.Conn {
	t.Helper()
	var local net.Addr
	if network == "tcp" {
		local = &net.TCPAddr{IP: net.ParseIP(src)}
	} else {
		local = &net.UDPAddr{IP: net.ParseIP(src)}
	}
	d := net.Dialer{LocalAddr: local, Timeout: 2 * time.Second}
	c, err := d.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestStrangersCannotAttach: in an authenticated session, a TCP data
// connection without the session's tag is refused and never becomes a
// flow; TCP_CRR connections and UDP datagrams from another address are not
// served. The session's own data is served and counted exactly.
func TestStrangersCannotAttach(t *testing.T) {
	_, ap, _ := daemon(t, server.Config{Token: token})

	t.Run("TCP_RR", func(t *testing.T) {
		pc, key, ready := session(t, ap, proto.Setup{Test: "TCP_RR", Request: 1, Response: 1, DurationNs: int64(time.Second)})
		data := netip.AddrPortFrom(ap.Addr(), uint16(ready.DataPort)).String()
		// A stranger with a wrong tag, and one that sends nothing.
		bad := dialFrom(t, "tcp", "127.0.0.1", data)
		bad.Write(make([]byte, auth.TagSize))
		dialFrom(t, "tcp", "127.0.0.1", data)
		good := greeted(t, "127.0.0.1", data, key)
		res := finish(t, pc, func() {
			rr(t, good, 100)
			good.(*net.TCPConn).CloseWrite()
			good.SetReadDeadline(time.Now().Add(5 * time.Second))
			good.Read(make([]byte, 1)) // the server's close
		})
		if res.Accepts != 1 || res.Transactions != 100 || res.Errors["unauthenticated"] != 2 {
			t.Fatalf("accepts %d, transactions %d, refused %d; want 1, 100, 2", res.Accepts, res.Transactions, res.Errors["unauthenticated"])
		}
		// The stranger got nothing but a close.
		bad.SetReadDeadline(time.Now().Add(2 * time.Second))
		if n, _ := bad.Read(make([]byte, 1)); n != 0 {
			t.Fatal("a stranger was answered")
		}
	})

	t.Run("TCP_CRR", func(t *testing.T) {
		pc, key, ready := session(t, ap, proto.Setup{Test: "TCP_CRR", Request: 1, Response: 1, DurationNs: int64(time.Second),
			Sources: []string{"127.0.0.2"}})
		data := netip.AddrPortFrom(ap.Addr(), uint16(ready.DataPort)).String()
		greeted(t, "127.0.0.1", data, key).Close() // the flow's first connection: its consent
		res := finish(t, pc, func() {
			stranger := dialFrom(t, "tcp", "127.0.0.9", data)
			stranger.Write([]byte{1})
			stranger.SetReadDeadline(time.Now().Add(2 * time.Second))
			if n, _ := stranger.Read(make([]byte, 1)); n != 0 {
				t.Error("a stranger's TCP_CRR connection was answered")
			}
			for _, src := range []string{"127.0.0.1", "127.0.0.2"} { // the control address and a declared source
				c := dialFrom(t, "tcp", src, data)
				rr(t, c, 1)
			}
		})
		if res.Accepts != 2 || res.Transactions != 2 || res.Errors["unauthenticated"] != 1 {
			t.Fatalf("accepts %d, transactions %d, refused %d; want 2, 2, 1", res.Accepts, res.Transactions, res.Errors["unauthenticated"])
		}
	})

	t.Run("UDP_RR", func(t *testing.T) {
		pc, key, ready := session(t, ap, proto.Setup{Test: "UDP_RR", Request: 1, Response: 1, DurationNs: int64(time.Second)})
		data := netip.AddrPortFrom(ap.Addr(), uint16(ready.DataPort)).String()
		flow := greetedUDP(t, "127.0.0.1", data, key, 0)
		// Another socket of the client's own address: not the flow's
		// source.
		other := dialFrom(t, "udp", "127.0.0.1", data)
		res := finish(t, pc, func() {
			for _, stranger := range []net.Conn{dialFrom(t, "udp", "127.0.0.9", data), other} {
				stranger.Write([]byte{1})
				stranger.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
				if n, _ := stranger.Read(make([]byte, 1)); n != 0 {
					t.Error("a stranger's datagram was answered")
				}
			}
			rr(t, flow, 10)
		})
		if res.Transactions != 10 || res.Errors["unauthenticated"] != 2 {
			t.Fatalf("transactions %d, refused %d; want 10, 2", res.Transactions, res.Errors["unauthenticated"])
		}
	})
}

// TestAuthenticatedWorkloads: with a token on both ends, every workload
// (and many flows, and declared sources) runs and the two ends agree.
func TestAuthenticatedWorkloads(t *testing.T) {
	_, ap, th := daemon(t, server.Config{Token: token})
	cases := []struct {
		name string
		edit func(s *spec.Spec)
	}{
		{"tcp_rr", func(s *spec.Spec) { s.Workload = spec.TCPRR }},
		{"tcp_rr 8 flows", func(s *spec.Spec) { s.Workload, s.Flows = spec.TCPRR, 8 }},
		{"tcp_crr from 127.0.0.2", func(s *spec.Spec) { s.Workload, s.Local = spec.TCPCRR, "127.0.0.2" }},
		{"udp_rr", func(s *spec.Spec) { s.Workload = spec.UDPRR }},
		{"tcp_stream", func(s *spec.Spec) { s.Workload = spec.TCPStream }},
		{"tcp_maerts", func(s *spec.Spec) { s.Workload = spec.TCPMaerts }},
	}
	for _, c := range cases {
		s := spec.Default(spec.TCPRR)
		c.edit(&s)
		d := spec.Default(s.Workload)
		d.Flows, d.Local = s.Flows, s.Local
		d.Host, d.Port, d.Duration = ap.Addr().String(), int(ap.Port()), 300*time.Millisecond
		r, err := client.Run(context.Background(), d, client.Options{Threads: th, Token: token})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := r.Remote.Errors["unauthenticated"]; n != 0 {
			t.Errorf("%s: the server refused %d of the client's own connections or datagrams", c.name, n)
		}
		// The server answered every transaction the client counted or
		// discarded, except that a TCP_CRR transaction abandoned at the
		// deadline may never have reached the server's loop (still in its
		// accept queue): there the server counted between the two.
		lo, hi := r.Transactions+r.Discarded, r.Transactions+r.Discarded
		if s.Workload == spec.TCPCRR {
			lo = r.Transactions
		}
		if s.Workload.RR() && s.Workload != spec.UDPRR && (r.Remote.Transactions < lo || r.Remote.Transactions > hi) {
			t.Errorf("%s: server %d, client %d + %d", c.name, r.Remote.Transactions, r.Transactions, r.Discarded)
		}
		if !s.Workload.RR() && r.Remote.BytesReceived == 0 && r.BytesReceived == 0 {
			t.Errorf("%s: nothing moved", c.name)
		}
	}
}
