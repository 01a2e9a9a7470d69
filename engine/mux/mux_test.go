package mux

import (
	"net"
	"net/netip"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/hist"
	"netscript/engine/sock"
	"netscript/engine/workload"
)

// pairs opens n loopback TCP connections and returns raw client and server
// descriptors.
func pairs(t *testing.T, n int) (clients, servers []int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, rawFD(t, c))
		servers = append(servers, rawFD(t, s))
	}
	return
}

func rawFD(t *testing.T, c net.Conn) int {
	t.Helper()
	f, err := c.(interface{ File() (*os.File, error) }).File()
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// serveUntilEnd runs a server on its own goroutine until the test ends;
// its cleanup stops it and waits before the sockets are closed (they were
// made earlier, so their cleanups run later), so a server never touches a
// descriptor number a later test has reused.
func serveUntilEnd(t *testing.T, stop *atomic.Bool, run func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); run() }()
	t.Cleanup(func() { stop.Store(true); <-done })
}

// rrTest runs n flows of TCP_RR against ServeRR and returns both sides.
func rrTest(t *testing.T, n int, cfg Config) ([]*Flow, []*Conn) {
	t.Helper()
	var th workload.Threads
	defer th.Acquire(cfg.Threads + 2)()
	cfds, sfds := pairs(t, n)
	var flows []*Flow
	var conns []*Conn
	for i := range cfds {
		flows = append(flows, &Flow{FD: cfds[i], Hist: hist.New()})
		conns = append(conns, &Conn{FD: sfds[i]})
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() { ServeRR(conns, cfg.Request, cfg.Response, 2, &stop); close(done) }()
	RunRR(time.Now(), flows, &cfg)
	for _, f := range flows {
		unix.Shutdown(f.FD, unix.SHUT_WR) // the server sees the end
	}
	<-done
	return flows, conns
}

// TestRRCounts: every flow does exactly its transactions, with exact bytes
// on both ends.
func TestRRCounts(t *testing.T) {
	for _, c := range []struct{ flows, threads, req, resp, burst int }{
		{1, 1, 1, 1, 0},
		{64, 2, 128, 4096, 0},
		{16, 2, 1, 1, 3},
		{5, 3, 70000, 100, 0},
	} {
		flows, conns := rrTest(t, c.flows, Config{Request: c.req, Response: c.resp, Burst: c.burst, Threads: c.threads,
			Limits: workload.Limits{Transactions: 200}})
		for i, f := range flows {
			r, s := f.Result, conns[i].Counts
			if f.Err != nil || r.Transactions != 200 || r.Discarded != 0 {
				t.Fatalf("%+v flow %d: %d transactions, %d discarded, err %v", c, i, r.Transactions, r.Discarded, f.Err)
			}
			if r.BytesSent != 200*uint64(c.req) || r.BytesReceived != 200*uint64(c.resp) {
				t.Errorf("%+v flow %d: bytes %d/%d", c, i, r.BytesSent, r.BytesReceived)
			}
			if s.Transactions != 200 || s.BytesReceived != 200*uint64(c.req) || s.BytesSent != 200*uint64(c.resp) {
				t.Errorf("%+v flow %d: server counted %d, %d/%d", c, i, s.Transactions, s.BytesReceived, s.BytesSent)
			}
			if f.Hist.Count() != 200 {
				t.Errorf("%+v flow %d: %d latency samples", c, i, f.Hist.Count())
			}
		}
	}
}

// TestRRTimed: a timed run's flows end at the deadline, and the server
// answered what each flow counted plus what it discarded. (How many
// transactions each flow fits in the window is the scheduler's business on
// a loaded machine; the flows together must have done some.)
func TestRRTimed(t *testing.T) {
	d := 300 * time.Millisecond
	flows, conns := rrTest(t, 32, Config{Request: 1, Response: 1, Threads: 2, Limits: workload.Limits{Duration: d}})
	var skewLo, skewHi time.Duration = 1 << 62, 0
	var total uint64
	for i, f := range flows {
		r := f.Result
		if f.Err != nil || r.Elapsed != d {
			t.Fatalf("flow %d: %+v err %v", i, r, f.Err)
		}
		if got := conns[i].Counts.Transactions; got != r.Transactions+r.Discarded {
			t.Errorf("flow %d: server %d, client %d + %d", i, got, r.Transactions, r.Discarded)
		}
		total += r.Transactions
		if r.Transactions > 0 {
			skewLo, skewHi = min(skewLo, r.First), max(skewHi, r.First)
		}
	}
	if total == 0 {
		t.Fatal("32 flows completed no transaction in 300 ms")
	}
	t.Logf("%d transactions; first-transaction spread over 32 flows: %v", total, skewHi-skewLo)
}

// TestCRRCounts: many flows of TCP_CRR against one accept loop; every
// connection carries one transaction.
func TestCRRCounts(t *testing.T) {
	var th workload.Threads
	defer th.Acquire(4)()
	lfd, err := sock.Open(unix.AF_INET, unix.SOCK_STREAM, sock.Options{ReuseAddr: true}, netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(lfd)
	if err := unix.Listen(lfd, 1024); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	srv := &workload.CRRServer{LFD: lfd, Request: 64, Response: 1000, Stop: &stop}
	done := make(chan struct{})
	go func() { runtime.LockOSThread(); srv.Run(); close(done) }()
	const n, per = 32, 40
	var flows []*Flow
	local := sock.NewAddr(netip.MustParseAddrPort("127.0.0.3:0"))
	for i := 0; i < n; i++ {
		flows = append(flows, &Flow{Hist: hist.New(), Local: local})
	}
	cfg := Config{Request: 64, Response: 1000, Threads: 2, Remote: sock.NewAddr(sock.LocalAddr(lfd)),
		Limits: workload.Limits{Transactions: per}}
	RunCRR(time.Now(), flows, &cfg)
	stop.Store(true)
	<-done
	for i, f := range flows {
		r := f.Result
		if f.Err != nil || r.Transactions != per || r.Connects != per || r.BytesReceived != per*1000 || r.BytesSent != per*64 {
			t.Fatalf("flow %d: %+v err %v", i, r, f.Err)
		}
	}
	if srv.Counts.Accepts != n*per || srv.Counts.Transactions != n*per {
		t.Fatalf("server: %d accepts, %d transactions, want %d", srv.Counts.Accepts, srv.Counts.Transactions, n*per)
	}
	if len(srv.Counts.Peers.Addrs) != 1 || srv.Counts.Peers.Addrs[0].String() != "127.0.0.3" {
		t.Fatalf("server saw %v, want 127.0.0.3", srv.Counts.Peers.Addrs)
	}
}

// TestThousandFlows: 1000 TCP_RR flows run on two threads a side without
// a thousand threads, each doing exactly its transactions (a count, so
// that every flow must be served however a loaded machine schedules the
// two threads), both ends agreeing.
func TestThousandFlows(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 connections")
	}
	before := threads()
	const per = 20
	flows, conns := rrTest(t, 1000, Config{Request: 1, Response: 1, Threads: 2, Limits: workload.Limits{Transactions: per}})
	for i, f := range flows {
		if f.Err != nil || f.Result.Transactions != per {
			t.Fatalf("flow %d: %+v %v", i, f.Result, f.Err)
		}
		if conns[i].Counts.Transactions != f.Result.Transactions+f.Result.Discarded {
			t.Fatalf("flow %d: server and client disagree", i)
		}
	}
	if grew := threads() - before; grew > 16 {
		t.Errorf("the process grew by %d threads for 1000 flows", grew)
	}
}

func threads() int {
	ents, _ := os.ReadDir("/proc/self/task")
	return len(ents)
}

// TestAllocs: after set-up, running many transactions allocates nothing.
func TestAllocs(t *testing.T) {
	var th workload.Threads
	defer th.Acquire(6)()
	cfds, sfds := pairs(t, 8)
	var conns []*Conn
	for _, fd := range sfds {
		conns = append(conns, &Conn{FD: fd})
	}
	var stop atomic.Bool
	serveUntilEnd(t, &stop, func() { ServeRR(conns, 16, 16, 1, &stop) })
	run := func(perFlow uint64) int64 {
		var flows []*Flow
		for _, fd := range cfds {
			flows = append(flows, &Flow{FD: fd})
		}
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		RunRR(time.Now(), flows, &Config{Request: 16, Response: 16, Threads: 1, Limits: workload.Limits{Transactions: perFlow}})
		runtime.ReadMemStats(&b)
		for i, f := range flows {
			if f.Err != nil || f.Result.Transactions != perFlow {
				t.Fatalf("flow %d: %d transactions of %d, err %v", i, f.Result.Transactions, perFlow, f.Err)
			}
		}
		return int64(b.Mallocs - a.Mallocs)
	}
	run(100) // warm up: goroutines, buffers the runtime keeps
	// A run's set-up allocates about the same each time (flows, buffers,
	// a goroutine, whatever the runtime needs then), so the difference
	// between a short and a long run is what the transactions cost. The
	// counters are the whole process's, so whatever else the runtime
	// allocates meanwhile (more of it the longer a run takes on a loaded
	// machine) shows up too, but as a handful of allocations (under ten
	// here), where a transaction path that allocated would add one or
	// more for each of the 72000 extra transactions. So the bound is per
	// transaction, and small: one allocation in a thousand transactions
	// would fail it.
	const short, long = 1000, 10000
	s := run(short)
	extra, more := run(long)-s, len(cfds)*(long-short)
	perTx := float64(extra) / float64(more)
	t.Logf("%d more allocations for %d more transactions: %.5f per transaction", extra, more, perTx)
	if perTx > 0.001 {
		t.Errorf("%.4f allocations per transaction (%d for %d more transactions), want none", perTx, extra, more)
	}
}
