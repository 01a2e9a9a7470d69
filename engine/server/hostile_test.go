package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/client"
	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/proto/manual"
	"netscript/engine/result"
	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

var token = auth.Token("correct horse battery staple")

// daemon starts an in-process server with cfg (Threads and Version filled
// in) on loopback.
func daemon(t *testing.T, cfg server.Config) (*server.Server, netip.AddrPort, *workload.Threads) {
	t.Helper()
	t.Setenv(auth.EnvToken, "") // only what each test gives
	th := &workload.Threads{}
	cfg.Threads, cfg.Version = th, "test"
	srv := server.New(cfg)
	a, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, netip.MustParseAddrPort(a.String()), th
}

// goodTest runs a 2 s TCP_RR with tok against ap in the background; wait
// returns its error, or one if the counts of the two ends disagree.
func goodTest(ap netip.AddrPort, th *workload.Threads, tok auth.Token, d time.Duration) (wait func() error) {
	done := make(chan error, 1)
	go func() {
		s := spec.Default(spec.TCPRR)
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		s.Duration = d
		r, err := client.Run(context.Background(), s, client.Options{Threads: th, Token: tok})
		if err == nil {
			err = countsAgree(r)
		}
		done <- err
	}()
	return func() error {
		select {
		case err := <-done:
			return err
		case <-time.After(d + 20*time.Second):
			return errors.New("the good test did not end")
		}
	}
}

// countsAgree: the server answered every request the client counted, plus
// those in flight at the deadline.
func countsAgree(r *result.Result) error {
	if r.Transactions == 0 || r.Remote == nil || r.Remote.Transactions != r.Transactions+r.Discarded {
		var remote uint64
		if r.Remote != nil {
			remote = r.Remote.Transactions
		}
		return fmt.Errorf("good test: the client counted %d (+%d discarded), the server %d", r.Transactions, r.Discarded, remote)
	}
	return nil
}

// endsSession writes in to a new control connection and checks that the
// server ends the session within limit (an Error frame may come first).
func endsSession(t *testing.T, ap netip.AddrPort, name string, in []byte, limit time.Duration) {
	c, err := net.Dial("tcp", ap.String())
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	defer c.Close()
	c.Write(in)
	c.SetReadDeadline(time.Now().Add(limit))
	if _, err = io.Copy(io.Discard, c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("%s: the server did not end the session: %v", name, err)
	}
}

// TestHostilePeersAgainstATokenServer: while a good, authenticated test
// runs, peers send garbage, broken frames, another version, unknown
// messages, requests that skip the token exchange and wrong proofs. Each
// such session ends within the handshake timeout, and the good test's
// counts agree.
func TestHostilePeersAgainstATokenServer(t *testing.T) {
	srv, ap, th := daemon(t, server.Config{Token: token, HandshakeTimeout: 2 * time.Second})
	wait := goodTest(ap, th, token, 2*time.Second)
	pre := proto.AppendPreamble(nil, proto.Version)
	frame := func(b []byte, typ proto.Type, v any) []byte {
		b, _ = proto.AppendFrame(b, typ, v)
		return b
	}
	rng := rand.New(rand.NewPCG(3, 4))
	garbage := make([]byte, 8192)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	// A real client's Hello and its answer, recorded, to replay.
	hello := func(tok auth.Token) []byte {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() {
			c, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				return
			}
			defer c.Close()
			pc := proto.NewConn(c)
			if pc.Handshake(5*time.Second, false) == nil {
				pc.Authenticate(auth.NewSecret(tok), false, 5*time.Second)
			}
		}()
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write(pre)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(c, make([]byte, proto.PreambleSize)); err != nil {
			t.Fatal(err)
		}
		typ, p, err := proto.ReadFrame(c, 4096)
		if err != nil || typ != proto.TypeHello {
			t.Fatalf("a recorded Hello: %s %v", typ, err)
		}
		return append([]byte{0, 0, 0, byte(len(p) + 1), byte(typ)}, p...)
	}
	setup := frame(nil, proto.TypeSetup, proto.Setup{Test: "TCP_RR", Request: 1, Response: 1})
	inputs := map[string][]byte{
		"random bytes":                            garbage,
		"random after preamble":                   append(pre, garbage...),
		"4 GiB length":                            append(pre, 0xff, 0xff, 0xff, 0xff, byte(proto.TypeHello)),
		"wrong version":                           proto.AppendPreamble(nil, 2),
		"version 3's challenge":                   append(proto.AppendPreamble(nil, 3), 0, 0, 0, 3, 17, '{', '}'),
		"unknown message":                         append(pre, 0, 0, 0, 3, 99, '{', '}'),
		"truncated frame":                         append(pre, 0, 0, 1, 0, byte(proto.TypeHello), 1),
		"truncated preamble":                      pre[:5],
		"setup without the token":                 append(append([]byte{}, pre...), setup...),
		"hello without a token":                   append(pre, hello(nil)...),
		"hello of another token":                  append(pre, hello(auth.Token("correct horse battery stapler"))...),
		"replayed hello, then a request in clear": append(append(pre, hello(token)...), setup...),
		"hello of mode 9":                         append(pre, 0, 0, 0, 34, byte(proto.TypeHello), 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32),
	}
	var wg sync.WaitGroup
	for name, in := range inputs {
		wg.Go(func() { endsSession(t, ap, name, in, 5*time.Second) })
	}
	wg.Wait()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	settles(t, srv, server.Load{})
}

// settles waits until the server holds want (every session of the test
// ended), for at most 15 s (it returns as soon as it does). A want of
// Threads -1 leaves the threads out (a test still runs).
func settles(t *testing.T, srv *server.Server, want server.Load) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	load := func() server.Load {
		l := srv.Load()
		if want.Threads < 0 {
			l.Threads = -1
		}
		return l
	}
	for load() != want {
		if time.Now().After(deadline) {
			t.Fatalf("the server still holds %+v, want %+v", srv.Load(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fds counts this process's open descriptors.
func fds(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(es)
}

// backTo waits until the process's descriptors and goroutines are back
// to what they were, for at most 15 s: nothing leaked.
func backTo(t *testing.T, fd0, g0 int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		fd, g := fds(t), runtime.NumGoroutine()
		if fd <= fd0 && g <= g0 {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("leak: %d descriptors (was %d), %d goroutines (was %d)\n%s", fd, fd0, g, g0, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSlowLorisAndVanishers: 200 control connections that connect and say
// nothing and 200 that connect and vanish, during a good test. The silent
// ones are closed by the server at the handshake deadline, the good test's
// counts agree, and afterwards no descriptor or goroutine is left.
func TestSlowLorisAndVanishers(t *testing.T) {
	srv, ap, th := daemon(t, server.Config{HandshakeTimeout: time.Second})
	fd0, g0 := fds(t), runtime.NumGoroutine()
	wait := goodTest(ap, th, nil, 2*time.Second)
	var silent []net.Conn
	for i := 0; i < 200; i++ {
		// From many addresses, as from many hosts: one address alone
		// holds at most --max-pending-per-client.
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(1+i%20))}}
		c, err := d.Dial("tcp", ap.String())
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, c)
		v, err := d.Dial("tcp", ap.String())
		if err != nil {
			t.Fatal(err)
		}
		v.Close()
	}
	var wg sync.WaitGroup
	for _, c := range silent {
		wg.Go(func() {
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.Copy(io.Discard, c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("a silent connection was not closed by the server: %v", err)
			}
		})
	}
	wg.Wait()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	settles(t, srv, server.Load{})
	backTo(t, fd0, g0)
}

// TestMaxPending: a connection beyond --max-pending takes the place of
// the oldest that has proved nothing; when every slot is held by a
// connection that proved the token, the next is refused at once with a
// reason; once they are gone, a client is served.
func TestMaxPending(t *testing.T) {
	l := limits.Default()
	l.MaxPending = 5
	// A bound longer than the test: the connections it holds in set-up
	// must still be there when it counts them, on however loaded a machine.
	srv, ap, th := daemon(t, server.Config{Limits: l, Token: token, HandshakeTimeout: time.Minute})
	var silent []net.Conn
	for i := 0; i < 5; i++ {
		c, err := net.Dial("tcp", ap.String())
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, c)
	}
	settles(t, srv, server.Load{Pending: 5, Threads: -1})
	s := spec.Default(spec.TCPRR)
	s.Host, s.Port, s.Duration = ap.Addr().String(), int(ap.Port()), 300*time.Millisecond
	if _, err := client.Run(context.Background(), s, client.Options{Threads: th, Token: token}); err != nil {
		t.Fatalf("with 5 silent connections in set-up: %v", err)
	}
	var proven []*proto.Conn
	for range 5 {
		pc, _, err := manual.Login(ap.String(), token, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		proven = append(proven, pc)
	}
	settles(t, srv, server.Load{Pending: 5, Proven: 5, Threads: -1}) // as the server counts them, not as the logins ended
	_, err := client.Run(context.Background(), s, client.Options{Threads: th, Token: token})
	if err == nil || !strings.Contains(err.Error(), "server busy: 5 control connections are being set up, the limit is 5") {
		t.Fatalf("with 5 token holders in set-up: %v", err)
	}
	for _, c := range silent {
		c.Close()
	}
	for _, pc := range proven {
		pc.Close()
	}
	settles(t, srv, server.Load{})
	if _, err := client.Run(context.Background(), s, client.Options{Threads: th, Token: token}); err != nil {
		t.Fatalf("once they are gone: %v", err)
	}
}

// TestAdmission: tests beyond --max-tests-per-client are refused with a
// reason naming the flag, and the refusal holds nothing.
func TestAdmission(t *testing.T) {
	l := limits.Default()
	l.MaxTestsPerClient = 1
	srv, ap, th := daemon(t, server.Config{Limits: l})
	wait := goodTest(ap, th, nil, 2*time.Second)
	settles(t, srv, server.Load{Running: 1, Threads: -1})
	s := spec.Default(spec.TCPRR)
	s.Host, s.Port, s.Duration = ap.Addr().String(), int(ap.Port()), time.Second
	_, err := client.Run(context.Background(), s, client.Options{Threads: th})
	if err == nil || !strings.Contains(err.Error(), "server: server busy for 127.0.0.1: 1 tests of its network 127.0.0.0/24 are running, the limit per client network is 1") {
		t.Fatalf("got %v", err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	settles(t, srv, server.Load{})
}

// TestConnRate: a TCP_CRR test that keeps above --max-conn-rate is ended
// by the server with a reason naming the flag, and the client keeps what
// it measured.
func TestConnRate(t *testing.T) {
	l := limits.Default()
	l.MaxConnRate = 10
	srv, ap, th := daemon(t, server.Config{Limits: l})
	s := spec.Default(spec.TCPCRR)
	s.Host, s.Port, s.Duration = ap.Addr().String(), int(ap.Port()), 20*time.Second
	r, err := client.Run(context.Background(), s, client.Options{Threads: th})
	var te *client.TestError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "tcp_crr: connection rate of more than 10/s exceeds this server's limit of 10/s") {
		t.Fatalf("got %v", err)
	}
	if r == nil || r.Transactions == 0 || !strings.Contains(err.Error(), "measured before that") {
		t.Fatalf("the partial result is lost: %v", err)
	}
	settles(t, srv, server.Load{})
}
