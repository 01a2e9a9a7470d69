package server_test

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/server"
)

// openSession asks an open server for a test by hand; it returns the
// connection and Ready, or the server's refusal.
func openSession(t *testing.T, ap netip.AddrPort, setup proto.Setup) (*proto.Conn, proto.Ready, error) {
	t.Helper()
	pc, _, ready, err := ask(t, ap, nil, setup)
	return pc, ready, err
}

// dataConns opens n connections to the test's data port, each greeted
// with the session's key.
func dataConns(t *testing.T, ap netip.AddrPort, pc *proto.Conn, ready proto.Ready, n int) []net.Conn {
	t.Helper()
	data := netip.AddrPortFrom(ap.Addr(), uint16(ready.DataPort)).String()
	var cs []net.Conn
	for range n {
		cs = append(cs, greeted(t, ap.Addr().String(), data, keyOf(pc)))
	}
	return cs
}

// TestThreadBudget: a test's threads are charged at Setup, before any of
// its connections arrives; one that does not fit is refused with a line
// naming --max-threads and takes nothing; the budget comes back when a
// test ends, even one that never started.
func TestThreadBudget(t *testing.T) {
	l := limits.Default()
	l.MaxThreads = 3
	srv, ap, _ := daemon(t, server.Config{Limits: l})
	rr := func(flows int) proto.Setup {
		return proto.Setup{Test: "TCP_RR", Request: 1, Response: 1, Flows: flows, DurationNs: int64(time.Second)}
	}
	// Four TCP_RR flows are served on a thread each: more than the budget.
	if _, _, err := openSession(t, ap, rr(4)); err == nil || !strings.Contains(err.Error(), "needs 4 data-path threads, more than the budget of 3") {
		t.Fatalf("4 flows: %v", err)
	}
	settles(t, srv, server.Load{})
	a, _, err := openSession(t, ap, rr(2))
	if err != nil {
		t.Fatal(err)
	}
	settles(t, srv, server.Load{Running: 1, Threads: 2})
	if _, _, err := openSession(t, ap, rr(2)); err == nil || !strings.Contains(err.Error(), "needs 2 data-path threads and 2 of the budget of 3 are in use") {
		t.Fatalf("a second test: %v", err)
	}
	a.Close() // the first test ends before it started: its threads come back
	settles(t, srv, server.Load{})
	b, ready, err := openSession(t, ap, rr(2))
	if err != nil {
		t.Fatalf("once the budget is back: %v", err)
	}
	cs := dataConns(t, ap, b, ready, 2)
	finishOpen(t, b, func() {
		for _, c := range cs {
			oneTransaction(t, c)
		}
	})
	settles(t, srv, server.Load{})
}

// finishOpen starts and stops a test of an open session.
func finishOpen(t *testing.T, pc *proto.Conn, between func()) proto.Results {
	t.Helper()
	return finish(t, pc, between)
}

// oneTransaction does a one-byte transaction on c and closes it.
func oneTransaction(t *testing.T, c net.Conn) {
	t.Helper()
	rr(t, c, 1)
	c.(*net.TCPConn).CloseWrite()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	c.Read(make([]byte, 1))
}

// TestFlowsThatNeverArrive: a test whose data connections have not all
// arrived when Start comes does not start, and says how many did; one
// whose client never says Start is ended at the handshake bound after its
// last connection, and told why; one whose connections keep coming, each
// within the bound, is waited for. The server holds nothing afterwards.
func TestFlowsThatNeverArrive(t *testing.T) {
	srv, ap, _ := daemon(t, server.Config{HandshakeTimeout: time.Second})
	setup := proto.Setup{Test: "TCP_STREAM", Flows: 3, DurationNs: int64(time.Second)}

	pc, ready, err := openSession(t, ap, setup)
	if err != nil {
		t.Fatal(err)
	}
	dataConns(t, ap, pc, ready, 2)
	if err := pc.Send(proto.TypeStart, proto.Start{}, time.Second); err != nil {
		t.Fatal(err)
	}
	err = pc.Expect(proto.TypeStarted, &proto.Started{}, 10*time.Second)
	var re *proto.RemoteError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "flows: 2 of the test's 3 data connections arrived and proved the session's tag in time") {
		t.Fatalf("Start with 2 of 3 flows: %v", err)
	}
	settles(t, srv, server.Load{})

	pc, ready, err = openSession(t, ap, setup)
	if err != nil {
		t.Fatal(err)
	}
	dataConns(t, ap, pc, ready, 3) // all there, but no Start
	err = pc.Expect(proto.TypeStarted, &proto.Started{}, 15*time.Second)
	if !errors.As(err, &re) || !strings.Contains(re.Message, "waiting for Start: 3 of 3 flows' data connections in, then nothing for 1s") {
		t.Fatalf("no Start: %v", err)
	}
	settles(t, srv, server.Load{})

	// A client that sets up slowly but steadily (a long path, many
	// flows) takes longer than the bound in all and is served. Four steps
	// of 300 ms are 1.2 s at least (a sleep is never short), past the 1 s
	// bound, and each leaves 700 ms for a loaded machine's lateness
	// (steps of 600 ms left 400).
	setup.DurationNs = int64(5 * time.Second) // the bound in all: 1 s and the test's length
	pc, ready, err = openSession(t, ap, setup)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		time.Sleep(300 * time.Millisecond)
		dataConns(t, ap, pc, ready, 1)
	}
	time.Sleep(300 * time.Millisecond)
	finish(t, pc, func() {})
	settles(t, srv, server.Load{})
}

// TestStrangersDoNotStallATest: twenty silent connections to an
// authenticated test's data port, ahead of the client's own, neither
// delay its start by their tag waits in turn (once 9 s) nor take its
// place; each is counted as unauthenticated.
func TestStrangersDoNotStallATest(t *testing.T) {
	srv, ap, _ := daemon(t, server.Config{Token: token})
	fd0 := fds(t)
	pc, key, ready := session(t, ap, proto.Setup{Test: "TCP_RR", Request: 1, Response: 1, DurationNs: int64(time.Second)})
	data := netip.AddrPortFrom(ap.Addr(), uint16(ready.DataPort)).String()
	for range 20 {
		dialFrom(t, "tcp", "127.0.0.2", data)
	}
	good := greeted(t, "127.0.0.1", data, key)
	t0 := time.Now()
	res := finish(t, pc, func() {
		// Serial checks took 20 tag waits before the good connection.
		if took := time.Since(t0); took > 20*time.Second {
			t.Errorf("the test started %v after Start", took)
		}
		oneTransaction(t, good)
	})
	if res.Accepts != 1 || res.Transactions != 1 || res.Errors["unauthenticated"] != 20 {
		t.Fatalf("accepts %d, transactions %d, unauthenticated %d; want 1, 1, 20", res.Accepts, res.Transactions, res.Errors["unauthenticated"])
	}
	pc.Close()
	settles(t, srv, server.Load{})
	waitFDs(t, fd0+21) // the strangers' own ends are closed by Cleanup
}

// waitFDs waits until the process has at most n descriptors open.
func waitFDs(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for fds(t) > n {
		if time.Now().After(deadline) {
			t.Fatalf("%d descriptors open, want at most %d", fds(t), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPendingPerClient: one client network (127.0.1.0/24 here) cannot hold
// every pending control slot: past --max-pending-per-client a new
// connection from it takes the place of its oldest that has proved nothing
// (the token, or a request); when all of them have proved the token, the
// new one is refused with a line naming the flag; a client from another
// network is served all the while.
func TestPendingPerClient(t *testing.T) {
	l := limits.Default()
	l.MaxPendingPerClient = 3
	l.HandshakeTimeout = time.Minute // longer than the test: what it holds stays held
	srv, ap, th := daemon(t, server.Config{Limits: l, Token: token})
	for range 3 {
		dialFrom(t, "tcp", "127.0.1.2", ap.String()) // silent
	}
	settles(t, srv, server.Load{Pending: 3})
	// A fourth from the same network, 127.0.1.9, proves the token and is
	// served: a silent one made room.
	secret := auth.NewSecret(token)
	login := func(src string) (*proto.Conn, error) {
		c := dialFrom(t, "tcp", src, ap.String())
		pc := proto.NewConn(c)
		err := pc.Handshake(10*time.Second, false)
		if err == nil {
			_, err = pc.Authenticate(secret, false, 10*time.Second)
		}
		return pc, err
	}
	var proven []*proto.Conn
	for range 3 {
		pc, err := login("127.0.1.9")
		if err != nil {
			t.Fatalf("a token holder of a full network: %v", err)
		}
		proven = append(proven, pc)
	}
	// The client's login ends before its server marks the slot proven:
	// wait for the server's own count, or the fourth could take the
	// place of the third.
	settles(t, srv, server.Load{Pending: 3, Proven: 3})
	_, err := login("127.0.1.2")
	if err == nil || !strings.Contains(err.Error(), "server busy for 127.0.1.2: 3 control connections of its network 127.0.1.0/24 are being set up, the limit per client network is 3") {
		t.Fatalf("a fourth when all three proved the token: %v", err)
	}
	if err := goodTest(ap, th, token, 500*time.Millisecond)(); err != nil {
		t.Fatalf("another network: %v", err)
	}
	for _, pc := range proven {
		pc.Close()
	}
}

// syncBuf is a log the server and the test share.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// TestClientStringsAreClipped: a Setup naming a 65,000-character test is
// refused with a short reply that quotes a prefix of it, and a flood of
// them fills the log with at most a few KiB a second.
func TestClientStringsAreClipped(t *testing.T) {
	log := &syncBuf{}
	_, ap, _ := daemon(t, server.Config{Log: log})
	name := strings.Repeat("A", 65000)
	t0 := time.Now()
	for i := range 40 {
		_, _, err := openSession(t, ap, proto.Setup{Test: name})
		var re *proto.RemoteError
		if !errors.As(err, &re) {
			t.Fatalf("session %d: %v", i, err)
		}
		if len(re.Message) > 200 || !strings.Contains(re.Message, `"`+strings.Repeat("A", 64)+`"... (65000 bytes)`) {
			t.Fatalf("the reply (%d bytes): %.300s", len(re.Message), re.Message)
		}
	}
	secs := time.Since(t0).Seconds() + 1
	if n := log.Len(); float64(n) > secs*20*1024 {
		t.Fatalf("%d bytes of log in %.1f s", n, secs)
	}
}

// TestOutOfOrderAfterReady: a message out of order after Ready is
// answered with an Error that says what came, not a bare close.
func TestOutOfOrderAfterReady(t *testing.T) {
	srv, ap, _ := daemon(t, server.Config{})
	for _, typ := range []proto.Type{proto.TypeStop, proto.TypeSetup, proto.TypeResults} {
		pc, ready, err := openSession(t, ap, proto.Setup{Test: "TCP_CRR", Request: 1, Response: 1, DurationNs: int64(time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		dataConns(t, ap, pc, ready, 1)[0].Close() // the flow's consent
		if err := pc.Send(typ, struct{}{}, time.Second); err != nil {
			t.Fatal(err)
		}
		err = pc.Expect(proto.TypeStarted, &proto.Started{}, 5*time.Second)
		var re *proto.RemoteError
		if !errors.As(err, &re) || !strings.Contains(re.Message, "protocol error") || !strings.Contains(re.Message, typ.String()) {
			t.Fatalf("%s after Ready: %v", typ, err)
		}
	}
	// And during the test.
	pc, ready, err := openSession(t, ap, proto.Setup{Test: "TCP_CRR", Request: 1, Response: 1, DurationNs: int64(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	dataConns(t, ap, pc, ready, 1)[0].Close()
	if err := pc.Send(proto.TypeStart, proto.Start{}, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := pc.Expect(proto.TypeStarted, &proto.Started{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := pc.Send(proto.TypeStart, proto.Start{}, time.Second); err != nil {
		t.Fatal(err)
	}
	err = pc.Expect(proto.TypeResults, &proto.Results{}, 5*time.Second)
	var re *proto.RemoteError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "protocol error: test TCP_CRR ended without Stop") {
		t.Fatalf("Start during the test: %v", err)
	}
	settles(t, srv, server.Load{})
}
