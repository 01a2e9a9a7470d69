package mux

import (
	"bufio"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"netscript/engine/hist"
	"netscript/engine/sock"
	"netscript/engine/workload"
)

// TestPreparedStart: flows prepared on their threads begin at the instant
// Start gives, not before, and all of them complete a transaction.
func TestPreparedStart(t *testing.T) {
	var th workload.Threads
	defer th.Acquire(4)()
	cfds, sfds := pairs(t, 16)
	var conns []*Conn
	for _, fd := range sfds {
		conns = append(conns, &Conn{FD: fd})
	}
	var stop atomic.Bool
	serveUntilEnd(t, &stop, func() { ServeRR(conns, 1, 1, 1, &stop) })
	var flows []*Flow
	for _, fd := range cfds {
		flows = append(flows, &Flow{FD: fd, Hist: hist.New()})
	}
	cfg := &Config{Request: 1, Response: 1, Threads: 2, Limits: workload.Limits{Transactions: 50}}
	r, err := PrepareRR(flows, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(30 * time.Millisecond)
	r.Start(t0)
	r.Wait()
	for i, f := range flows {
		if f.Err != nil || f.Result.Transactions != 50 {
			t.Fatalf("flow %d: %+v %v", i, f.Result, f.Err)
		}
		if f.Result.First <= 0 {
			t.Errorf("flow %d: first transaction at %v from the start", i, f.Result.First)
		}
	}
	if time.Now().Before(t0) {
		t.Fatal("the flows ended before their start")
	}
}

// TestAbort: a runner that is never started leaves no thread behind.
func TestAbort(t *testing.T) {
	before := threads()
	for k := 0; k < 5; k++ {
		cfds, _ := pairs(t, 4)
		var flows []*Flow
		for _, fd := range cfds {
			flows = append(flows, &Flow{FD: fd})
		}
		r, err := PrepareRR(flows, &Config{Request: 1, Response: 1, Threads: 2, Limits: workload.Limits{Transactions: 1}})
		if err != nil {
			t.Fatal(err)
		}
		r.Abort()
	}
	// Locked threads that end are ended by the runtime, asynchronously:
	// wait for it, generously (a loaded machine runs it late).
	deadline := time.Now().Add(10 * time.Second)
	for threads() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if grew := threads() - before; grew > 2 {
		t.Errorf("%d threads left after aborting 5 runners of 2 threads", grew)
	}
}

// crrPeers is a TCP_CRR server that notes every client port it sees.
func crrPeers(t *testing.T) (netip.AddrPort, func() []netip.AddrPort) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var mu sync.Mutex
	var seen []netip.AddrPort
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			seen = append(seen, c.RemoteAddr().(*net.TCPAddr).AddrPort())
			mu.Unlock()
			go func() {
				defer c.Close()
				b := make([]byte, 1)
				if _, err := bufio.NewReader(c).Read(b); err == nil {
					c.Write(b)
				}
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).AddrPort(), func() []netip.AddrPort {
		mu.Lock()
		defer mu.Unlock()
		return append([]netip.AddrPort(nil), seen...)
	}
}

// TestCRRWalk: with a port walk every connection comes from the flow's
// next port in the range; a port still taken is counted and skipped, and
// every transaction the client counted reached the server.
func TestCRRWalk(t *testing.T) {
	var th workload.Threads
	defer th.Acquire(4)()
	srv, seen := crrPeers(t)
	const lo, hi, n, per = 41000, 41063, 4, 30
	var flows []*Flow
	for i := 0; i < n; i++ {
		flows = append(flows, &Flow{Hist: hist.New(),
			Local: sock.NewAddr(netip.MustParseAddrPort("127.0.0.1:0")),
			Walk:  workload.NewPortWalk(lo, hi, workload.WalkStart(lo, hi, i, n), 0)})
	}
	cfg := &Config{Request: 1, Response: 1, Threads: 2, Remote: sock.NewAddr(srv), Limits: workload.Limits{Transactions: per}}
	RunCRR(time.Now(), flows, cfg)
	var errs uint64
	for i, f := range flows {
		if f.Err != nil || f.Result.Transactions != per {
			t.Fatalf("flow %d: %+v %v", i, f.Result, f.Err)
		}
		for _, v := range f.Result.Errors.Map() {
			errs += v
		}
	}
	ports := seen()
	if len(ports) < n*per {
		t.Fatalf("the server saw %d connections, want at least %d", len(ports), n*per)
	}
	for _, p := range ports {
		if p.Port() < lo || p.Port() > hi {
			t.Fatalf("a connection from port %d, outside %d-%d", p.Port(), lo, hi)
		}
	}
	t.Logf("%d connections from %d-%d, %d connects skipped a taken port", len(ports), lo, hi, errs)
}
