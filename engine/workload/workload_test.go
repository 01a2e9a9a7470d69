package workload

import (
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/hist"
	"netscript/engine/sock"
)

// tcpPair returns two connected blocking TCP sockets on loopback with the
// data path's tick timeouts.
func tcpPair(t *testing.T) (client, server int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return rawFD(t, c), rawFD(t, s)
}

// rawFD takes a duplicate blocking descriptor out of a net.Conn.
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
	unix.SetNonblock(fd, false)
	if err := sock.SetTick(fd, sock.Tick); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// serve runs a server loop on its own goroutine until the test ends. Its
// cleanup sets stop and waits for the loop to return before the sockets the
// loop uses are closed (cleanups run last registered first, and the sockets
// were made before serve is called), so a loop can never touch a
// descriptor number that a later test has reused.
func serve(t *testing.T, stop *atomic.Bool, run func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); run() }()
	t.Cleanup(func() { stop.Store(true); <-done })
}

// udpPair returns a connected UDP client socket and the server socket.
func udpPair(t *testing.T) (client, server int) {
	t.Helper()
	s, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("udp", s.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	return rawFD(t, c), rawFD(t, s.(net.Conn))
}

// TestRRCounts checks that a count-limited TCP_RR moves exactly
// transactions × sizes on both ends, for several sizes and bursts.
func TestRRCounts(t *testing.T) {
	cases := []struct{ req, resp, burst int }{
		{1, 1, 0},      // netperf's default
		{128, 4096, 0}, // the dns-operations sizes
		{4096, 128, 0}, // large request, small response
		{1, 1, 8},      // burst
		{100, 300, 3},  // burst with sizes that do not divide buffers
		{70000, 10, 0}, // a request larger than one read
	}
	for _, c := range cases {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &RRServer{FD: sfd, Request: c.req, Response: c.resp, Burst: c.burst, Stop: &stop}
		done := make(chan struct{})
		go func() { srv.Run(); close(done) }()
		const n = 500
		rr := &RR{Loop: Loop{Limits: Limits{Transactions: n}, Hist: hist.New()}, FD: cfd, Request: c.req, Response: c.resp, Burst: c.burst}
		rr.Run()
		unix.Shutdown(cfd, unix.SHUT_WR)
		<-done
		if rr.Err != nil {
			t.Fatalf("%+v: %v", c, rr.Err)
		}
		r := rr.Result
		if r.Transactions != n || r.Discarded != 0 {
			t.Errorf("%+v: transactions %d discarded %d, want %d and 0", c, r.Transactions, r.Discarded, n)
		}
		if r.BytesSent != n*uint64(c.req) || r.BytesReceived != n*uint64(c.resp) {
			t.Errorf("%+v: client moved %d/%d bytes, want %d/%d", c, r.BytesSent, r.BytesReceived, n*c.req, n*c.resp)
		}
		s := srv.Counts
		if s.Transactions != n || s.BytesReceived != n*uint64(c.req) || s.BytesSent != n*uint64(c.resp) {
			t.Errorf("%+v: server counted %d transactions, %d/%d bytes", c, s.Transactions, s.BytesReceived, s.BytesSent)
		}
		if got := rr.Hist.Count(); got != n {
			t.Errorf("%+v: histogram holds %d samples, want %d", c, got, n)
		}
	}
}

// TestRRBurstInFlight proves that burst=8 keeps exactly 9 requests in
// flight: a server that answers nothing sees exactly 9 requests arrive, and
// after it answers one, exactly one more.
func TestRRBurstInFlight(t *testing.T) {
	for _, burst := range []int{0, 1, 8} {
		cfd, sfd := tcpPair(t)
		const req = 4
		rr := &RR{Loop: Loop{Limits: Limits{Transactions: 100}}, FD: cfd, Request: req, Response: 1, Burst: burst}
		done := make(chan struct{})
		go func() { rr.Run(); close(done) }()
		got := readFor(t, sfd, 300*time.Millisecond)
		if want := (burst + 1) * req; got != want {
			t.Errorf("burst %d: %d request bytes in flight, want %d", burst, got, want)
		}
		sock.Write(sfd, []byte{0}) // answer one
		if got := readFor(t, sfd, 300*time.Millisecond); got != req {
			t.Errorf("burst %d: one response let %d more bytes in, want %d", burst, got, req)
		}
		unix.Shutdown(sfd, unix.SHUT_RDWR)
		<-done
	}
}

// readFor reads from fd for d and returns how many bytes arrived.
func readFor(t *testing.T, fd int, d time.Duration) int {
	t.Helper()
	buf := make([]byte, 1<<16)
	total := 0
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		n, en := sock.Read(fd, buf)
		if en == unix.EAGAIN || en == unix.EINTR {
			continue
		}
		if en != 0 || n == 0 {
			break
		}
		total += n
	}
	return total
}

// TestRRDeadline checks timed runs: the measured interval is exactly the
// duration, and what the client counted plus what it discarded is what the
// server answered.
func TestRRDeadline(t *testing.T) {
	for _, burst := range []int{0, 4} {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &RRServer{FD: sfd, Request: 1, Response: 1, Burst: burst, Stop: &stop}
		done := make(chan struct{})
		go func() { srv.Run(); unix.Shutdown(sfd, unix.SHUT_WR); close(done) }()
		d := 300 * time.Millisecond
		rr := &RR{Loop: Loop{Limits: Limits{Duration: d}}, FD: cfd, Request: 1, Response: 1, Burst: burst}
		rr.Run()
		unix.Shutdown(cfd, unix.SHUT_WR)
		drain(cfd)
		<-done
		r := rr.Result
		if r.Elapsed != d {
			t.Errorf("burst %d: elapsed %v, want exactly %v", burst, r.Elapsed, d)
		}
		if r.Transactions == 0 || r.Discarded == 0 || r.Discarded > uint64(burst+1) {
			t.Errorf("burst %d: %d transactions, %d discarded", burst, r.Transactions, r.Discarded)
		}
		if srv.Counts.Transactions != r.Transactions+r.Discarded {
			t.Errorf("burst %d: server answered %d, client counted %d + %d discarded", burst, srv.Counts.Transactions, r.Transactions, r.Discarded)
		}
	}
}

func drain(fd int) {
	buf := make([]byte, 4096)
	for {
		n, en := sock.Read(fd, buf)
		if en == unix.EAGAIN || en == unix.EINTR {
			continue
		}
		if en != 0 || n == 0 {
			return
		}
	}
}

// TestUDPRRLoss drops every response: each transaction must end as lost
// after the timeout and the loop must go on, never hang. Each lost one
// waited at least the 100 ms timeout, so 350 ms hold at most 4 (3 on an
// idle machine; a loaded one that wakes the loop late loses fewer), and
// the first one's timeout ends inside the test.
func TestUDPRRLoss(t *testing.T) {
	cfd, _ := udpPair(t) // nobody answers on the server socket
	u := &UDPRR{Loop: Loop{Limits: Limits{Duration: 350 * time.Millisecond}}, FD: cfd, Request: 1, Response: 1, Timeout: 100 * time.Millisecond}
	start := time.Now()
	u.Run()
	if took := time.Since(start); took > 10*time.Second { // a hang guard
		t.Fatalf("loop took %v", took)
	}
	if u.Err != nil {
		t.Fatal(u.Err)
	}
	if u.Result.Lost < 1 || u.Result.Lost > 4 || u.Result.Transactions != 0 {
		t.Errorf("lost %d, transactions %d; want 1 to 4 lost (about 3), 0 done", u.Result.Lost, u.Result.Transactions)
	}
}

// TestUDPRRCounts checks a count-limited UDP_RR with burst.
func TestUDPRRCounts(t *testing.T) {
	cfd, sfd := udpPair(t)
	var stop atomic.Bool
	srv := &UDPRRServer{FD: sfd, Response: 300, Stop: &stop}
	done := make(chan struct{})
	go func() { srv.Run(); close(done) }()
	u := &UDPRR{Loop: Loop{Limits: Limits{Transactions: 1000}}, FD: cfd, Request: 100, Response: 300, Burst: 3, Timeout: time.Second}
	u.Run()
	stop.Store(true)
	<-done
	r := u.Result
	if r.Transactions+r.Lost != 1000 {
		t.Fatalf("transactions %d + lost %d != 1000", r.Transactions, r.Lost)
	}
	if r.BytesSent != 1000*100 || srv.Counts.BytesReceived != 1000*100 {
		t.Errorf("request bytes: client sent %d, server got %d, want 100000", r.BytesSent, srv.Counts.BytesReceived)
	}
	if r.BytesReceived != r.Transactions*300 {
		t.Errorf("response bytes %d for %d transactions", r.BytesReceived, r.Transactions)
	}
}

// TestUDPServerPeersInterleaved: datagrams from two sources, interleaved
// (A B A A B A), are counted against the right source by both UDP server
// loops; a run from one source must not land on whichever source was seen
// last.
func TestUDPServerPeersInterleaved(t *testing.T) {
	order := "ABAABA"
	for _, name := range []string{"UDPRRServer", "UDPSink"} {
		t.Run(name, func(t *testing.T) {
			_, sfd := udpPair(t)
			srvAddr := sock.LocalAddr(sfd)
			from := map[byte]net.Conn{}
			for _, src := range []string{"127.0.0.1", "127.0.0.2"} {
				c, err := net.DialUDP("udp", &net.UDPAddr{IP: net.ParseIP(src)}, net.UDPAddrFromAddrPort(srvAddr))
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				from["AB"[len(from)]] = c
			}
			var stop atomic.Bool
			var counts *ServerCounts
			var run func()
			if name == "UDPRRServer" {
				s := &UDPRRServer{FD: sfd, Response: 1, Stop: &stop}
				counts, run = &s.Counts, s.Run
			} else {
				s := &UDPSink{FD: sfd, RecvSize: 64, Stop: &stop}
				counts, run = &s.Counts, s.Run
			}
			for i := range len(order) {
				if _, err := from[order[i]].Write([]byte{1}); err != nil {
					t.Fatal(err)
				}
			}
			stop.Store(true) // the loop drains what is queued, then ends
			run()
			got := map[string]uint64{}
			for i, a := range counts.Peers.Addrs {
				got[a.String()] = counts.Peers.Counts[i]
			}
			if got["127.0.0.1"] != 4 || got["127.0.0.2"] != 2 || len(got) != 2 {
				t.Errorf("peers %v, want 127.0.0.1: 4, 127.0.0.2: 2", got)
			}
		})
	}
}
