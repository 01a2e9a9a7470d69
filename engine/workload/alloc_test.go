package workload

import (
	"fmt"
	"net/netip"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/hist"
	"netscript/engine/sock"
)

// crrListener opens a TCP_CRR data listener on loopback and returns it and
// its address.
func crrListener(t *testing.T) (int, *sock.Addr) {
	t.Helper()
	fd, err := sock.Open(unix.AF_INET, unix.SOCK_STREAM, sock.Options{ReuseAddr: true}, netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 1024); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd, sock.NewAddr(sock.LocalAddr(fd))
}

// TestCRRCounts: N transactions make N connections, the server accepts N and
// each carries exactly one request and one response.
func TestCRRCounts(t *testing.T) {
	lfd, addr := crrListener(t)
	var stop atomic.Bool
	srv := &CRRServer{LFD: lfd, Request: 128, Response: 4096, Stop: &stop}
	done := make(chan struct{})
	go func() { srv.Run(); close(done) }()
	const n = 300
	c := &CRR{Loop: Loop{Limits: Limits{Transactions: n}, Hist: hist.New()}, Remote: addr, Request: 128, Response: 4096}
	c.Run()
	stop.Store(true)
	<-done
	if c.Err != nil {
		t.Fatal(c.Err)
	}
	r, s := c.Result, srv.Counts
	if r.Transactions != n || r.Connects != n {
		t.Errorf("client: %d transactions over %d connections, want %d", r.Transactions, r.Connects, n)
	}
	if s.Accepts != n || s.Transactions != n {
		t.Errorf("server: %d accepts, %d transactions, want %d each", s.Accepts, s.Transactions, n)
	}
	if r.BytesSent != n*128 || r.BytesReceived != n*4096 || s.BytesReceived != n*128 || s.BytesSent != n*4096 {
		t.Errorf("bytes: client %d/%d server %d/%d", r.BytesSent, r.BytesReceived, s.BytesReceived, s.BytesSent)
	}
	if len(s.Peers.Addrs) != 1 || s.Peers.Addrs[0].String() != "127.0.0.1" || s.Peers.Counts[0] != n {
		t.Errorf("peers %v %v", s.Peers.Addrs, s.Peers.Counts)
	}
}

// TestAllocs shows that the per-transaction paths of every workload, client
// and server alike, allocate nothing: each loop is run short and ten times
// as long, and the long run costs no more allocations than the short one
// (checkAllocs).
func TestAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts need a quiet runtime")
	}
	t.Run("TCP_RR", func(t *testing.T) {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &RRServer{FD: sfd, Request: 64, Response: 64, Burst: 2, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			rr := &RR{Loop: Loop{Limits: Limits{Transactions: 2000 * scale}, Hist: hist.New()}, FD: cfd, Request: 64, Response: 64, Burst: 2}
			rr.Prepare()
			return func() (uint64, error) { rr.Run(); return rr.Result.Transactions, rr.Err }
		})
	})
	t.Run("TCP_CRR", func(t *testing.T) {
		lfd, addr := crrListener(t)
		var stop atomic.Bool
		srv := &CRRServer{LFD: lfd, Request: 1, Response: 1, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			c := &CRR{Loop: Loop{Limits: Limits{Transactions: 200 * scale}, Hist: hist.New()}, Remote: addr, Request: 1, Response: 1}
			c.Prepare()
			return func() (uint64, error) { c.Run(); return c.Result.Transactions, c.Err }
		})
	})
	t.Run("TCP_RR paced with interim samples", func(t *testing.T) {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &RRServer{FD: sfd, Request: 1, Response: 1, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			rr := &RR{Loop: Loop{Limits: Limits{Transactions: 200 * scale}, Hist: hist.New(), Live: &Live{},
				Pace: NewPacer(4000), Interim: NewInterim(time.Millisecond, 0)}, FD: cfd, Request: 1, Response: 1}
			rr.Prepare()
			return func() (uint64, error) { rr.Run(); return rr.Result.Transactions, rr.Err }
		})
	})
	t.Run("TCP_CRR fastopen", func(t *testing.T) {
		lfd, addr := crrListener(t)
		if err := sock.ListenFastOpen(lfd, 64); err != nil {
			t.Fatal(err)
		}
		var stop atomic.Bool
		srv := &CRRServer{LFD: lfd, Request: 1, Response: 1, FastOpen: true, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			c := &CRR{Loop: Loop{Limits: Limits{Transactions: 200 * scale}, Hist: hist.New(), Pace: NewPacer(1e6)},
				Remote: addr, Request: 1, Response: 1, FastOpen: true, SendBuffer: 65536}
			c.Prepare()
			return func() (uint64, error) { c.Run(); return c.Result.Transactions, c.Err }
		})
	})
	t.Run("TCP_STREAM", func(t *testing.T) {
		// Each run half-closes its connection, so each gets its own.
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			cfd, sfd := tcpPair(t)
			var stop atomic.Bool
			srv := &StreamSink{FD: sfd, RecvSize: 1 << 16, Stop: &stop}
			srv.Prepare()
			serve(t, &stop, srv.Run)
			s := &Stream{Loop: Loop{Limits: Limits{Duration: time.Hour}, Live: &Live{}, Interim: NewInterim(time.Millisecond, 0)},
				FD: cfd, SendSize: 4096, Bytes: 4 << 20 * scale, Drain: time.Second}
			s.Prepare()
			return func() (uint64, error) { s.Run(); return s.Result.SendCalls, s.Err }
		})
	})
	t.Run("TCP_MAERTS", func(t *testing.T) {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &MaertsSource{FD: sfd, SendSize: 16384, Pace: NewPacer(1e7), Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			d := 30 * time.Millisecond * time.Duration(scale)
			m := &Maerts{Loop: Loop{Limits: Limits{Duration: d}, Live: &Live{}, Interim: NewInterim(time.Millisecond, d)},
				FD: cfd, RecvSize: 1 << 16}
			m.Prepare()
			return func() (uint64, error) { m.Run(); return m.Result.RecvCalls, m.Err }
		})
	})
	t.Run("UDP_STREAM", func(t *testing.T) {
		cfd, sfd := udpPair(t)
		var stop atomic.Bool
		srv := &UDPSink{FD: sfd, RecvSize: MaxDatagram, Standing: true, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			u := &UDPStream{Loop: Loop{Limits: Limits{Duration: time.Hour}, Live: &Live{}, Pace: NewPacer(1e6)},
				FD: cfd, SendSize: 1000, Bytes: 2000 * 1000 * scale}
			u.Prepare()
			return func() (uint64, error) { u.Run(); return u.Result.SendCalls, u.Err }
		})
	})
	t.Run("UDP_RR", func(t *testing.T) {
		cfd, sfd := udpPair(t)
		var stop atomic.Bool
		srv := &UDPRRServer{FD: sfd, Response: 32, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		checkAllocs(t, func(scale uint64) func() (uint64, error) {
			u := &UDPRR{Loop: Loop{Limits: Limits{Transactions: 2000 * scale}, Hist: hist.New()}, FD: cfd, Request: 32, Response: 32, Burst: 1, Timeout: sock.Tick}
			if err := u.Prepare(); err != nil {
				t.Fatal(err)
			}
			return func() (uint64, error) { u.Run(); return u.Result.Transactions, u.Err }
		})
	})
}

// checkAllocs measures what one unit of a loop's work (a transaction, a
// send, a receive) allocates. mk(scale) builds and prepares a fresh loop
// whose limit is scale times a base one, and returns the function that runs
// it and reports the units it did; building is outside the measurement.
// After a warm-up (first-time runtime work: timers, thread creation) a
// short run and one ten times as long are measured. The allocation counter
// is the whole process's, so the runtime's own allocations meanwhile show
// in a run's total (now and then a burst of a few, when it starts a
// thread); the difference between the two runs over the difference in
// units is what each unit costs, and it must be as good as none: at most
// one allocation in a thousand units. (A path that allocates does so for
// every unit, or every few.) Such a burst can only add to a pair, never
// hide an allocating path, so the best of three pairs counts.
// testing.AllocsPerRun cannot be used: it sets GOMAXPROCS to 1, and a
// data-path thread holds its P while it blocks, so client and server
// loops could not both run.
func checkAllocs(t *testing.T, mk func(scale uint64) func() (uint64, error)) {
	t.Helper()
	var th Threads
	defer th.Acquire(2)()
	measure := func(scale uint64) (int64, uint64) {
		t.Helper()
		run := mk(scale)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		units, err := run()
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if units == 0 {
			t.Fatal("the loop did no work")
		}
		return int64(after.Mallocs - before.Mallocs), units
	}
	measure(1) // warm up
	var msg string
	for try := 1; try <= 3; try++ {
		a0, u0 := measure(1)
		a1, u1 := measure(10)
		if u1 <= u0 {
			t.Fatalf("the long run did %d units of work, the short one %d", u1, u0)
		}
		per := float64(a1-a0) / float64(u1-u0)
		msg = fmt.Sprintf("%.4f allocations per unit of work (%d for %d units, %d for %d)", per, a1, u1, a0, u0)
		t.Logf("try %d: %s", try, msg)
		if per <= 0.001 {
			return
		}
	}
	t.Errorf("%s in each of three tries, want none", msg)
}
