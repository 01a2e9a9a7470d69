package workload

import (
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
// and server alike, allocate nothing: a run of many transactions after
// Prepare costs no allocation at all.
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
		rr := &RR{Loop: Loop{Limits: Limits{Transactions: 2000}, Hist: hist.New()}, FD: cfd, Request: 64, Response: 64, Burst: 2}
		rr.Prepare()
		checkAllocs(t, func() { rr.Run() })
		if rr.Err != nil {
			t.Fatal(rr.Err)
		}
	})
	t.Run("TCP_CRR", func(t *testing.T) {
		lfd, addr := crrListener(t)
		var stop atomic.Bool
		srv := &CRRServer{LFD: lfd, Request: 1, Response: 1, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		c := &CRR{Loop: Loop{Limits: Limits{Transactions: 200}, Hist: hist.New()}, Remote: addr, Request: 1, Response: 1}
		c.Prepare()
		checkAllocs(t, func() { c.Run() })
		if c.Err != nil {
			t.Fatal(c.Err)
		}
	})
	t.Run("TCP_RR paced with interim samples", func(t *testing.T) {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &RRServer{FD: sfd, Request: 1, Response: 1, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		rr := &RR{Loop: Loop{Limits: Limits{Transactions: 200}, Hist: hist.New(), Live: &Live{},
			Pace: NewPacer(4000), Interim: NewInterim(time.Millisecond, 0)}, FD: cfd, Request: 1, Response: 1}
		rr.Prepare()
		checkAllocs(t, func() { rr.Run() })
		if rr.Err != nil {
			t.Fatal(rr.Err)
		}
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
		c := &CRR{Loop: Loop{Limits: Limits{Transactions: 200}, Hist: hist.New(), Pace: NewPacer(1e6)},
			Remote: addr, Request: 1, Response: 1, FastOpen: true, SendBuffer: 65536}
		c.Prepare()
		checkAllocs(t, func() { c.Run() })
		if c.Err != nil {
			t.Fatal(c.Err)
		}
	})
	t.Run("TCP_STREAM", func(t *testing.T) {
		// Each run half-closes its connection, so each gets its own.
		var loops []*Stream
		for i := 0; i < 4; i++ {
			cfd, sfd := tcpPair(t)
			var stop atomic.Bool
			srv := &StreamSink{FD: sfd, RecvSize: 1 << 16, Stop: &stop}
			srv.Prepare()
			serve(t, &stop, srv.Run)
			s := &Stream{Loop: Loop{Limits: Limits{Duration: time.Hour}, Live: &Live{}, Interim: NewInterim(time.Millisecond, 0)},
				FD: cfd, SendSize: 4096, Bytes: 4 << 20, Drain: time.Second}
			s.Prepare()
			loops = append(loops, s)
		}
		i := 0
		checkAllocs(t, func() {
			s := loops[min(i, len(loops)-1)]
			i++
			s.Run()
			if s.Err != nil {
				t.Error(s.Err)
			}
		})
	})
	t.Run("TCP_MAERTS", func(t *testing.T) {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &MaertsSource{FD: sfd, SendSize: 16384, Pace: NewPacer(1e7), Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		m := &Maerts{Loop: Loop{Limits: Limits{Duration: 30 * time.Millisecond}, Live: &Live{}, Interim: NewInterim(time.Millisecond, 30*time.Millisecond)},
			FD: cfd, RecvSize: 1 << 16}
		m.Prepare()
		checkAllocs(t, func() {
			m.Start = time.Time{}
			m.Run()
			if m.Err != nil || m.Result.BytesReceived == 0 {
				t.Errorf("%v, %d bytes", m.Err, m.Result.BytesReceived)
			}
		})
	})
	t.Run("UDP_STREAM", func(t *testing.T) {
		cfd, sfd := udpPair(t)
		var stop atomic.Bool
		srv := &UDPSink{FD: sfd, RecvSize: MaxDatagram, Standing: true, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		u := &UDPStream{Loop: Loop{Limits: Limits{Duration: time.Hour}, Live: &Live{}, Pace: NewPacer(1e6)},
			FD: cfd, SendSize: 1000, Bytes: 2000 * 1000}
		u.Prepare()
		checkAllocs(t, func() { u.Run() })
		if u.Err != nil {
			t.Fatal(u.Err)
		}
	})
	t.Run("UDP_RR", func(t *testing.T) {
		cfd, sfd := udpPair(t)
		var stop atomic.Bool
		srv := &UDPRRServer{FD: sfd, Response: 32, Stop: &stop}
		srv.Prepare()
		serve(t, &stop, srv.Run)
		u := &UDPRR{Loop: Loop{Limits: Limits{Transactions: 2000}, Hist: hist.New()}, FD: cfd, Request: 32, Response: 32, Burst: 1, Timeout: sock.Tick}
		if err := u.Prepare(); err != nil {
			t.Fatal(err)
		}
		checkAllocs(t, func() { u.Run() })
		if u.Err != nil {
			t.Fatal(u.Err)
		}
	})
}

// checkAllocs runs f (a whole loop of many transactions) and fails if the
// process allocated anything meanwhile. testing.AllocsPerRun cannot be used:
// it sets GOMAXPROCS to 1, and a data-path thread holds its P while it
// blocks, so client and server loops could not both run.
func checkAllocs(t *testing.T, f func()) {
	t.Helper()
	var th Threads
	defer th.Acquire(2)()
	f() // warm up: first-time runtime work (timers, thread creation) is not the loop's
	var before, after runtime.MemStats
	for try := 0; try < 3; try++ {
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		if after.Mallocs == before.Mallocs {
			return
		}
	}
	t.Errorf("%d allocations during a run of the loop, want 0", after.Mallocs-before.Mallocs)
}
