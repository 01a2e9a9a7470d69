package server_test

import (
	"net"
	"net/netip"
	"runtime"
	"sync"
	"testing"
	"time"

	"netscript/engine/limits"
	"netscript/engine/server"
	"netscript/engine/spec"
)

// TestStandingEndpointsCannotLockOut is issue 29's hole 4: a standing
// endpoint (--data) served each connection on a thread of the budget with
// no bound on idling or per client, so 130 idle connections held the whole
// budget of a daemon with a token, and a token holder's test was refused.
// Now a client network holds at most --max-tests-per-client of them, the
// standing endpoints at most half the budget, and a connection that moves
// nothing for the handshake bound is ended and its thread given back: with
// 130 idle connections from one network and 40 from as many others, a
// token holder's test runs, the idle ones are ended, and the daemon is
// back to its resident thread. On 84d21eb the token holder's test was
// refused (the test fails there).
func TestStandingEndpointsCannotLockOut(t *testing.T) {
	l := limits.Default()
	l.MaxThreads, l.MaxTestsPerClient = 16, 4
	srv, ap, th := daemon(t, server.Config{Token: token, Limits: l, HandshakeTimeout: 2 * time.Second})
	ep, err := srv.Data(server.DataConfig{Workload: spec.TCPRR, Addr: netip.MustParseAddrPort("127.0.0.1:0")})
	if err != nil {
		t.Fatal(err)
	}
	fd0, g0 := fds(t), runtime.NumGoroutine()
	var idle []net.Conn
	var mu sync.Mutex
	var wg sync.WaitGroup
	dial := func(src net.IP) {
		defer wg.Done()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: src}, Timeout: 2 * time.Second}
		if c, err := d.Dial("tcp", ep.String()); err == nil {
			mu.Lock()
			idle = append(idle, c)
			mu.Unlock()
		}
	}
	for i := range 130 {
		wg.Add(1)
		go dial(net.IPv4(127, 0, 2, byte(1+i)))
	}
	for i := range 40 {
		wg.Add(1)
		go dial(net.IPv4(127, 3, byte(i), 1))
	}
	wg.Wait()
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	time.Sleep(300 * time.Millisecond) // the endpoint has taken what it takes
	t.Logf("%d idle connections open; the server holds %+v", len(idle), srv.Load())
	if err := goodTest(ap, th, token, 500*time.Millisecond)(); err != nil {
		t.Fatalf("a token holder's test beside the idle connections: %v", err)
	}
	// The idle ones are ended, and give their threads back.
	ended := 0
	for _, c := range idle {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err != nil {
			ended++
		}
	}
	if ended != len(idle) {
		t.Errorf("%d of %d idle connections ended", ended, len(idle))
	}
	settles(t, srv, server.Load{Threads: 1}) // the endpoint's own thread
	for _, c := range idle {
		c.Close()
	}
	backTo(t, fd0, g0)
}
