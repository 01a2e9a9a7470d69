package mux

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
	"netscript/engine/workload"
)

// patience bounds every wait of these tests: generous, so that a loaded
// machine only makes them slower; a wait that runs out is a failure.
const patience = 20 * time.Second

// connsOf wraps server descriptors as Conns.
func connsOf(fds []int) []*Conn {
	var out []*Conn
	for _, fd := range fds {
		out = append(out, &Conn{FD: fd})
	}
	return out
}

// serveAsync runs serve on its own goroutine and returns a channel that
// yields its stats; the test's cleanup stops it and waits, before the
// sockets are closed.
func serveAsync(t *testing.T, stop *atomic.Bool, serve func() ServeStats) <-chan ServeStats {
	t.Helper()
	out := make(chan ServeStats, 1)
	done := make(chan struct{})
	go func() { defer close(done); out <- serve() }()
	t.Cleanup(func() { stop.Store(true); <-done })
	return out
}

// await waits for the server's stats.
func await(t *testing.T, st <-chan ServeStats) ServeStats {
	t.Helper()
	select {
	case s := <-st:
		return s
	case <-time.After(patience):
		t.Fatalf("the server did not end within %v", patience)
	}
	return ServeStats{}
}

// readToEOF reads fd (blocking, with a receive timeout) until its peer
// closes it, and returns the bytes read and whether the close came.
func readToEOF(t *testing.T, fd int) (uint64, bool) {
	t.Helper()
	if err := sock.SetRecvTimeout(fd, patience); err != nil {
		t.Error(err)
		return 0, false
	}
	buf := make([]byte, 64<<10)
	var got uint64
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return got, err == nil
		}
		got += uint64(n)
	}
}

// forEach runs fn(i) for every i < n on goroutines of its own and waits.
func forEach(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Go(func() { fn(i) })
	}
	wg.Wait()
}

// TestStreamSink: every connection's bytes are read and counted exactly,
// in receive calls of at most RecvSize bytes; at each client's end of
// stream the server closes back (the client sees EOF), and the server ends
// by itself once every stream has ended.
func TestStreamSink(t *testing.T) {
	for _, c := range []struct {
		name           string
		flows, threads int
		recvSize       int
		bytes          uint64
	}{
		{"one flow", 1, 1, 16384, 1 << 20},
		{"a small receive size", 8, 2, 1000, 300001},
		{"more flows than threads", 64, 2, 131072, 100003},
		{"no data", 5, 2, 4096, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var th workload.Threads
			defer th.Acquire(c.threads + 2)()
			cfds, sfds := pairs(t, c.flows)
			conns := connsOf(sfds)
			var stop atomic.Bool
			st := serveAsync(t, &stop, func() ServeStats {
				return ServeStream(conns, ServeConfig{RecvSize: c.recvSize, Threads: c.threads, Stop: &stop})
			})
			closed := make([]bool, c.flows)
			forEach(c.flows, func(i int) {
				if !writeAndClose(t, i, cfds[i], c.bytes, 50000) {
					return
				}
				_, closed[i] = readToEOF(t, cfds[i])
			})
			s := await(t, st)
			if s.Err != nil {
				t.Fatal(s.Err)
			}
			for i, conn := range conns {
				k := conn.Counts
				if !closed[i] || conn.Err != nil || k.BytesReceived != c.bytes || k.BytesSent != 0 {
					t.Errorf("flow %d: closed back %v, received %d of %d, sent %d, err %v", i, closed[i], k.BytesReceived, c.bytes, k.BytesSent, conn.Err)
				}
				if calls := k.RecvCalls; calls*uint64(c.recvSize) < c.bytes || calls > c.bytes || (c.bytes > 0) != (calls > 0) {
					t.Errorf("flow %d: %d receive calls of %d bytes for %d bytes", i, calls, c.recvSize, c.bytes)
				}
				if len(k.Errors.Map()) != 0 {
					t.Errorf("flow %d: errors %v", i, k.Errors.Map())
				}
			}
		})
	}
}

// TestStreamSinkStop: Stop ends the server while its clients still hold
// their streams open.
func TestStreamSinkStop(t *testing.T) {
	var th workload.Threads
	defer th.Acquire(4)()
	cfds, sfds := pairs(t, 8)
	conns := connsOf(sfds)
	var stop atomic.Bool
	ready := make(chan struct{})
	st := serveAsync(t, &stop, func() ServeStats {
		return ServeStream(conns, ServeConfig{RecvSize: 4096, Threads: 2, Stop: &stop, Ready: func() { close(ready) }})
	})
	<-ready
	for _, fd := range cfds {
		unix.Write(fd, []byte("some bytes"))
	}
	stop.Store(true)
	await(t, st)
	for i, conn := range conns {
		if conn.Counts.BytesReceived > 10 || conn.Err != nil {
			t.Errorf("flow %d: received %d, err %v", i, conn.Counts.BytesReceived, conn.Err)
		}
	}
}

// TestMaertsSource: with a byte count each connection gets exactly its
// bytes, then the close; paced, in exactly one send a period.
func TestMaertsSource(t *testing.T) {
	for _, c := range []struct {
		name           string
		flows, threads int
		sendSize       int
		bytes          uint64
		rate           float64
	}{
		{"one flow", 1, 1, 16384, 1<<20 + 7, 0},
		{"a send size that does not divide", 16, 2, 1000, 300001, 0},
		{"more flows than threads", 64, 2, 131072, 1 << 20, 0},
		{"paced", 8, 2, 100, 1000, 50},
		{"paced, fast", 32, 2, 1000, 200000, 5000},
	} {
		t.Run(c.name, func(t *testing.T) {
			var th workload.Threads
			defer th.Acquire(c.threads + 2)()
			cfds, sfds := pairs(t, c.flows)
			conns := connsOf(sfds)
			var stop atomic.Bool
			begun := time.Now()
			st := serveAsync(t, &stop, func() ServeStats {
				return ServeMaerts(conns, ServeConfig{SendSize: c.sendSize, Bytes: c.bytes, Rate: c.rate, Threads: c.threads, Stop: &stop})
			})
			got := make([]uint64, c.flows)
			closed := make([]bool, c.flows)
			forEach(c.flows, func(i int) { got[i], closed[i] = readToEOF(t, cfds[i]) })
			elapsed := time.Since(begun)
			if s := await(t, st); s.Err != nil {
				t.Fatal(s.Err)
			}
			sends := (c.bytes + uint64(c.sendSize) - 1) / uint64(c.sendSize)
			for i, conn := range conns {
				k := conn.Counts
				if !closed[i] || got[i] != c.bytes || k.BytesSent != c.bytes || conn.Err != nil {
					t.Errorf("flow %d: closed %v, client got %d, server sent %d, want %d; err %v", i, closed[i], got[i], k.BytesSent, c.bytes, conn.Err)
				}
				if k.SendCalls < sends || c.rate > 0 && k.SendCalls != sends {
					t.Errorf("flow %d: %d send calls, want %d (send size %d)", i, k.SendCalls, sends, c.sendSize)
				}
			}
			// The sends are due one period apart from the first, so they
			// cannot all have been made sooner (a loaded machine only
			// makes them later).
			if c.rate > 0 {
				if least := time.Duration(float64(sends-1) / c.rate * float64(time.Second)); elapsed < least {
					t.Errorf("%d paced sends at %v/s took %v, less than %v", sends, c.rate, elapsed, least)
				}
			}
		})
	}
}

// TestMaertsSourceStop: unpaced and without a byte count, the server sends
// until Stop, then closes each connection: what every client reads up to
// that close is exactly what the server counted as sent (the client's
// received plus drained). A client that goes away ends only its own
// connection, counted as an error of the send, not a failure.
func TestMaertsSourceStop(t *testing.T) {
	for _, rate := range []float64{0, 200} {
		var th workload.Threads
		defer th.Acquire(4)()
		const n = 16
		cfds, sfds := pairs(t, n)
		conns := connsOf(sfds)
		var stop atomic.Bool
		st := serveAsync(t, &stop, func() ServeStats {
			return ServeMaerts(conns, ServeConfig{SendSize: 8192, Rate: rate, Threads: 2, Stop: &stop})
		})
		goAway(t, cfds[n-1])
		got := make([]uint64, n)
		closed := make([]bool, n)
		var first sync.WaitGroup
		first.Add(n - 1)
		go func() { first.Wait(); stop.Store(true) }() // once every client has data
		forEach(n-1, func(i int) {
			buf := make([]byte, 1)
			if m, err := unix.Read(cfds[i], buf); err != nil || m != 1 {
				t.Errorf("rate %v flow %d: first read: %d, %v", rate, i, m, err)
			}
			first.Done()
			got[i], closed[i] = readToEOF(t, cfds[i])
			got[i]++
		})
		await(t, st)
		for i, conn := range conns[:n-1] {
			if !closed[i] || got[i] != conn.Counts.BytesSent || conn.Err != nil {
				t.Errorf("rate %v flow %d: closed %v, client got %d, server sent %d, err %v", rate, i, closed[i], got[i], conn.Counts.BytesSent, conn.Err)
			}
		}
		// Whether its sends failed before Stop came is the scheduler's
		// business; if they did, it was as a peer that went away.
		gone := conns[n-1]
		for name := range gone.Counts.Errors.Map() {
			if name != "EPIPE" && name != "ECONNRESET" {
				t.Errorf("rate %v: the client that went away: %s", rate, name)
			}
		}
		if gone.Err != nil {
			t.Errorf("rate %v: the client that went away failed the server: %v", rate, gone.Err)
		}
	}
}

// goAway closes the client socket fd now, leaving its number open (on
// /dev/null) for the cleanup that closes it.
func goAway(t *testing.T, fd int) {
	t.Helper()
	null, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(null)
	if err := unix.Dup3(null, fd, unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
}

// TestStreamAllocs: after set-up, the stream servers allocate nothing per
// receive or send: a long run allocates no more than a short one, within
// what the runtime itself allocates meanwhile (a few dozen at most, where a
// call that allocated would add one for each of 160000 more calls).
func TestStreamAllocs(t *testing.T) {
	const flows, size = 4, 100
	run := func(t *testing.T, maerts bool, bytes uint64) (allocs, calls uint64) {
		var th workload.Threads
		defer th.Acquire(3)()
		cfds, sfds := pairs(t, flows)
		conns := connsOf(sfds)
		var stop atomic.Bool
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		st := serveAsync(t, &stop, func() ServeStats {
			if maerts {
				return ServeMaerts(conns, ServeConfig{SendSize: size, Bytes: bytes, Threads: 1, Stop: &stop})
			}
			return ServeStream(conns, ServeConfig{RecvSize: size, Threads: 1, Stop: &stop})
		})
		forEach(flows, func(i int) {
			if !maerts {
				if !writeAndClose(t, i, cfds[i], bytes, 64<<10) {
					return
				}
			}
			readToEOF(t, cfds[i])
		})
		await(t, st)
		runtime.ReadMemStats(&b)
		for _, c := range conns {
			if c.Counts.BytesSent+c.Counts.BytesReceived != bytes {
				t.Fatalf("moved %d+%d bytes, want %d", c.Counts.BytesSent, c.Counts.BytesReceived, bytes)
			}
			calls += c.Counts.SendCalls + c.Counts.RecvCalls
		}
		return b.Mallocs - a.Mallocs, calls
	}
	for _, maerts := range []bool{false, true} {
		t.Run(map[bool]string{false: "TCP_STREAM", true: "TCP_MAERTS"}[maerts], func(t *testing.T) {
			run(t, maerts, 10000) // warm up
			short, shortCalls := run(t, maerts, 10000)
			long, longCalls := run(t, maerts, 4000000)
			extra, more := float64(long)-float64(short), float64(longCalls-shortCalls)
			t.Logf("%.0f more allocations for %.0f more calls", extra, more)
			if extra/more > 0.001 {
				t.Errorf("%.4f allocations per call (%.0f for %.0f more calls), want none", extra/more, extra, more)
			}
		})
	}
}

// TestMsUntil: epoll_wait waits until the next send is due, rounded up to
// a millisecond, and never longer than a tick, even when nothing is due
// (far off, where adding the rounding would overflow).
func TestMsUntil(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{
		{-time.Second, 0},
		{0, 0},
		{1, 1},
		{time.Millisecond, 1},
		{time.Millisecond + 1, 2},
		{sock.Tick - 1, tickMs},
		{sock.Tick, tickMs},
		{time.Hour, tickMs},
		{time.Duration(1<<63 - 1), tickMs},
	} {
		if got := msUntil(c.d); got != c.want {
			t.Errorf("msUntil(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

// TestMaertsSourceStopFull: Stop ends the server while every socket is
// full (its client reads nothing), paced or not: no wait outlasts a tick.
func TestMaertsSourceStopFull(t *testing.T) {
	for _, rate := range []float64{0, 100000} {
		var th workload.Threads
		defer th.Acquire(3)()
		cfds, sfds := pairs(t, 4)
		conns := connsOf(sfds)
		var stop atomic.Bool
		st := serveAsync(t, &stop, func() ServeStats {
			return ServeMaerts(conns, ServeConfig{SendSize: 65536, Rate: rate, Threads: 1, Stop: &stop})
		})
		// Once data has reached every client, the server has a moment to
		// fill the sockets, which the clients never read.
		giveUp := time.Now().Add(patience)
		for full := false; !full; {
			if time.Now().After(giveUp) {
				t.Fatalf("rate %v: no data reached the clients within %v", rate, patience)
			}
			time.Sleep(10 * time.Millisecond)
			full = true
			for _, fd := range cfds {
				queued, err := unix.IoctlGetInt(fd, unix.SIOCINQ)
				full = full && err == nil && queued > 0
			}
		}
		time.Sleep(200 * time.Millisecond)
		stop.Store(true)
		await(t, st)
		for i, fd := range cfds {
			if got, closed := readToEOF(t, fd); !closed || got != conns[i].Counts.BytesSent || conns[i].Err != nil {
				t.Errorf("rate %v flow %d: closed %v, read %d, server sent %d, err %v", rate, i, closed, got, conns[i].Counts.BytesSent, conns[i].Err)
			}
		}
	}
}

// writeAndClose writes n bytes to flow i's socket fd in writes of at most
// chunk bytes, then half-closes it; false (the test told) if a write
// failed.
func writeAndClose(t *testing.T, i, fd int, n uint64, chunk int) bool {
	buf := make([]byte, chunk)
	for left := n; left > 0; {
		k, err := unix.Write(fd, buf[:min(left, uint64(len(buf)))])
		if err != nil {
			t.Errorf("flow %d: write: %v", i, err)
			return false
		}
		left -= uint64(k)
	}
	unix.Shutdown(fd, unix.SHUT_WR)
	return true
}
