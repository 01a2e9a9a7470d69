package mux

import (
	"errors"
	"net/netip"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/hist"
	"netscript/engine/result"
	"netscript/engine/sock"
	"netscript/engine/workload"
)

// quickAckArmed reads TCP_QUICKACK back: 1 while the socket is out of the
// kernel's "pingpong" (delayed ACK) mode, which sending a reply soon after
// a receive, or a FIN arriving, puts it in.
func quickAckArmed(t *testing.T, fd int) bool {
	t.Helper()
	v, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK)
	if err != nil {
		t.Fatalf("getsockopt(TCP_QUICKACK): %v", err)
	}
	return v == 1
}

// segsOut is how many segments fd's connection has sent (tcpi_segs_out).
func segsOut(t *testing.T, fd int) uint32 {
	t.Helper()
	ti, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	if err != nil {
		t.Fatalf("getsockopt(TCP_INFO): %v", err)
	}
	return ti.Segs_out
}

// TestRRQuickAckReArmed: with quickack=True, both ends of multiplexed
// TCP_RR re-arm TCP_QUICKACK after each receive, as the threaded loops do.
// The sockets get it once at the start (as the knob sets it at connect
// and accept); after the run the kernel still reports it armed on both
// ends: the client's last act was a receive, the server's the read of the
// client's FIN. Set only once, the replies each end sent put it back in
// delayed-ACK mode (and the FIN does on the server), so this fails without
// the re-arm. And what it costs shows in the segments: re-armed, each
// receive sends its ACK at once, before the reply, so every connection
// sends at least two segments per transaction on each end (set once, the
// ACK rides on the reply). Every transaction is counted on both ends
// either way.
func TestRRQuickAckReArmed(t *testing.T) {
	for _, quick := range []bool{true, false} {
		var th workload.Threads
		release := th.Acquire(4)
		const n, per = 8, 200
		cfds, sfds := pairs(t, n)
		var flows []*Flow
		var conns []*Conn
		for i := range cfds {
			for _, fd := range []int{cfds[i], sfds[i]} {
				if en := sock.SetInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1); en != 0 {
					t.Fatal(en)
				}
			}
			flows = append(flows, &Flow{FD: cfds[i], Hist: hist.New()})
			conns = append(conns, &Conn{FD: sfds[i]})
		}
		var stop atomic.Bool
		done := make(chan struct{})
		go func() {
			Serve(conns, ServeConfig{Request: 10, Response: 20, Threads: 2, Stop: &stop, QuickAck: quick})
			close(done)
		}()
		RunRR(time.Now(), flows, &Config{Request: 10, Response: 20, Threads: 2, Limits: workload.Limits{Transactions: per},
			Knobs: &sock.Knobs{QuickAck: quick}})
		clientArmed, clientSegs := 0, uint32(1<<31)
		for _, f := range flows {
			if quickAckArmed(t, f.FD) {
				clientArmed++
			}
			clientSegs = min(clientSegs, segsOut(t, f.FD))
			unix.Shutdown(f.FD, unix.SHUT_WR)
		}
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			stop.Store(true)
			<-done
			t.Fatalf("quickack %v: the server did not see every client's end within 30 s", quick)
		}
		serverArmed, serverSegs := 0, uint32(1<<31)
		for i, c := range conns {
			f := flows[i]
			if f.Err != nil || f.Result.Transactions != per || c.Counts.Transactions != per {
				t.Fatalf("quickack %v flow %d: client %d transactions (err %v), server %d; want %d", quick, i,
					f.Result.Transactions, f.Err, c.Counts.Transactions, per)
			}
			if quickAckArmed(t, c.FD) {
				serverArmed++
			}
			serverSegs = min(serverSegs, segsOut(t, c.FD))
		}
		release()
		t.Logf("quickack %v: TCP_QUICKACK armed at the end on %d of %d client and %d server sockets; "+
			"the fewest segments a connection sent for %d transactions: client %d, server %d",
			quick, clientArmed, n, serverArmed, per, clientSegs, serverSegs)
		if quick && (clientArmed != n || serverArmed != n) {
			t.Errorf("quickack=True: TCP_QUICKACK armed at the end on %d client and %d server sockets of %d; want all: not re-armed after each receive",
				clientArmed, serverArmed, n)
		}
		if quick && (clientSegs < 2*per || serverSegs < 2*per) {
			t.Errorf("quickack=True: a connection sent only %d segments on the client, %d on the server for %d transactions; want two per transaction at least",
				clientSegs, serverSegs, per)
		}
	}
}

// crrListener is a TCP_CRR server on loopback reading TCP_INFO of every
// connection; stop ends it and returns its counts.
func crrListener(t *testing.T, req, resp int) (*sock.Addr, func() *workload.ServerCounts) {
	t.Helper()
	lfd, err := sock.Open(unix.AF_INET, unix.SOCK_STREAM, sock.Options{ReuseAddr: true}, netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(lfd) })
	if err := unix.Listen(lfd, 1024); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	srv := &workload.CRRServer{LFD: lfd, Request: req, Response: resp, Stop: &stop, TCPInfo: true}
	done := make(chan struct{})
	go func() { runtime.LockOSThread(); srv.Run(); close(done) }()
	stopped := false
	end := func() *workload.ServerCounts {
		if !stopped {
			stopped = true
			stop.Store(true)
			<-done
		}
		return &srv.Counts
	}
	t.Cleanup(func() { end() })
	return sock.NewAddr(sock.LocalAddr(lfd)), end
}

// tcpMeans is what a TCPSums says, for comparing two runs' meaning.
func tcpMeans(s *result.TCPSums) (conns, rttConns uint64, mss float64, cc string) {
	if s.Conns > 0 {
		mss = float64(s.MSS) / float64(s.Conns)
	}
	return s.Conns, s.RTTConns, mss, s.Congestion
}

// TestCRRKnobsAndTCPInfo: multiplexed TCP_CRR sets the knobs on every
// connection before it connects (mss below loopback's, reno) and reads
// each connection's TCP_INFO before it closes, into figures that mean what
// the threaded loop's mean: a connection read per transaction, each with
// an RTT sample, the algorithm and the MSS the knobs asked for.
func TestCRRKnobsAndTCPInfo(t *testing.T) {
	var th workload.Threads
	defer th.Acquire(5)()
	const req, resp, per = 64, 3000, 15
	remote, end := crrListener(t, req, resp)
	knobs := &sock.Knobs{Congestion: "reno", MSS: 1000, TCPInfo: true}
	for _, c := range []struct{ flows, threads int }{{8, 2}, {3, 1}} {
		var flows []*Flow
		for i := 0; i < c.flows; i++ {
			flows = append(flows, &Flow{Hist: hist.New()})
		}
		RunCRR(time.Now(), flows, &Config{Request: req, Response: resp, Threads: c.threads, Remote: remote,
			Limits: workload.Limits{Transactions: per}, Knobs: knobs})
		for i, f := range flows {
			r := &f.Result
			conns, rttConns, mss, cc := tcpMeans(&r.TCP)
			if f.Err != nil || r.Transactions != per || conns != per || rttConns != per {
				t.Fatalf("%d flows, flow %d: %d transactions (err %v), TCP_INFO of %d connections, %d with an RTT; want %d",
					c.flows, i, r.Transactions, f.Err, conns, rttConns, per)
			}
			if cc != "reno" || mss <= 0 || mss > 1000 || r.TCP.SpanNs != uint64(r.Elapsed) {
				t.Errorf("%d flows, flow %d: congestion %q, mss %.0f, span %d ns of %v; want reno, at most 1000, the flow's elapsed",
					c.flows, i, cc, mss, r.TCP.SpanNs, r.Elapsed)
			}
		}
	}

	// The threaded loop, same knobs, same server: the same figures.
	loop := &workload.CRR{Loop: workload.Loop{Limits: workload.Limits{Transactions: per}}, Remote: remote,
		Request: req, Response: resp, Knobs: knobs, TCPInfo: true}
	ran := make(chan struct{})
	go func() { runtime.LockOSThread(); loop.Run(); close(ran) }()
	<-ran
	var flows []*Flow
	flows = append(flows, &Flow{})
	RunCRR(time.Now(), flows, &Config{Request: req, Response: resp, Threads: 1, Remote: remote,
		Limits: workload.Limits{Transactions: per}, Knobs: knobs})
	tc, tr, tm, tcc := tcpMeans(&loop.Result.TCP)
	mc, mr, mm, mcc := tcpMeans(&flows[0].Result.TCP)
	if loop.Err != nil || tc != mc || tr != mr || tm != mm || tcc != mcc {
		t.Errorf("threaded: %d connections, %d RTTs, mss %.0f, %q (err %v); multiplexed: %d, %d, %.0f, %q",
			tc, tr, tm, tcc, loop.Err, mc, mr, mm, mcc)
	}
	s := end()
	if want := uint64(8*per + 3*per + 2*per); s.Accepts != want || s.TCP.Conns != want {
		t.Errorf("server: %d accepts, TCP_INFO of %d connections; want %d", s.Accepts, s.TCP.Conns, want)
	}
}

// TestCRRKnobRefused: a knob the kernel refuses on a multiplexed
// connection ends the flow at once with one line naming the option, the
// end and the errno, counted once, and the thread's other flows too.
func TestCRRKnobRefused(t *testing.T) {
	var th workload.Threads
	defer th.Acquire(3)()
	remote, end := crrListener(t, 1, 1)
	var flows []*Flow
	for i := 0; i < 6; i++ {
		flows = append(flows, &Flow{})
	}
	start := time.Now()
	RunCRR(start, flows, &Config{Request: 1, Response: 1, Threads: 2, Remote: remote,
		Limits: workload.Limits{Duration: 90 * time.Second}, Knobs: &sock.Knobs{Congestion: "nosuch"}})
	// Flows that did not give up run the 90 s; a loaded machine takes
	// far less than 30 s to give up.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the flows took %v to give up", d)
	}
	for i, f := range flows {
		var ke *sock.KnobError
		if !errors.As(f.Err, &ke) || ke.Option != "congestion" || ke.End != "client" || ke.Err != unix.ENOENT {
			t.Fatalf("flow %d: err %v; want congestion refused by the client's kernel with ENOENT", i, f.Err)
		}
		msg := f.Err.Error()
		if !strings.HasPrefix(msg, "congestion: the client's kernel refused it: ") || !strings.Contains(msg, "(ENOENT)") || strings.Contains(msg, "\n") {
			t.Errorf("flow %d: %q; want one line naming the option, the end and the errno", i, msg)
		}
		if r := f.Result; r.Transactions != 0 || r.Errors[unix.ENOENT] != 1 || len(r.Errors.Map()) != 1 {
			t.Errorf("flow %d: %d transactions, errors %v; want none and one ENOENT", i, r.Transactions, r.Errors.Map())
		}
	}
	if s := end(); s.Accepts != 0 {
		t.Errorf("the server accepted %d connections; want none", s.Accepts)
	}
}

// TestCRRKnobsAllocs: the knobs and the TCP_INFO read add nothing
// allocated per connection to multiplexed TCP_CRR (measured as TestAllocs
// does: the difference between a short and a long run).
func TestCRRKnobsAllocs(t *testing.T) {
	var th workload.Threads
	defer th.Acquire(3)()
	remote, _ := crrListener(t, 1, 1)
	knobs := &sock.Knobs{Congestion: "reno", MSS: 1000, HasTOS: true, TOS: 0x10, TCPInfo: true}
	run := func(per uint64) int64 {
		flows := []*Flow{{}, {}}
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		RunCRR(time.Now(), flows, &Config{Request: 1, Response: 1, Threads: 1, Remote: remote,
			Limits: workload.Limits{Transactions: per}, Knobs: knobs})
		runtime.ReadMemStats(&b)
		for i, f := range flows {
			if f.Err != nil || f.Result.Transactions != per || f.Result.TCP.Conns != per {
				t.Fatalf("flow %d: %d transactions, %d read, of %d; err %v", i, f.Result.Transactions, f.Result.TCP.Conns, per, f.Err)
			}
		}
		return int64(b.Mallocs - a.Mallocs)
	}
	run(20)
	// The counters are the process's: the runtime's own few allocations
	// (up to about 15 here) show up too, so the bound is per connection,
	// and a run gets three tries, as workload's checkAllocs gives.
	const short, long = 100, 3000
	var perConn float64
	for try := 1; try <= 3; try++ {
		s := run(short)
		extra, more := run(long)-s, 2*(long-short)
		perConn = float64(extra) / float64(more)
		t.Logf("try %d: %d more allocations for %d more connections: %.4f per connection", try, extra, more, perConn)
		if perConn <= 0.01 {
			return
		}
	}
	t.Errorf("%.4f allocations per connection in each of three tries, want none", perConn)
}
