package workload

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/hist"
	"netscript/engine/sock"
)

// TestStreamCounts: TCP_STREAM moves exactly what it was asked to, and what
// the client sent is what the server read, for a byte count and for a timed
// run; the timed run's interval covers the drain, so it is at least the
// duration.
func TestStreamCounts(t *testing.T) {
	cases := []struct {
		name     string
		sendSize int
		bytes    uint64
		duration time.Duration
	}{
		{"byte count that divides", 16384, 64 * 16384, 0},
		{"byte count that does not divide", 1000, 123457, 0},
		{"timed", 16384, 0, 300 * time.Millisecond},
	}
	for _, c := range cases {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &StreamSink{FD: sfd, RecvSize: 65536, Stop: &stop}
		done := make(chan struct{})
		go func() { srv.Run(); close(done) }()
		s := &Stream{Loop: Loop{Limits: Limits{Duration: c.duration}}, FD: cfd, SendSize: c.sendSize, Bytes: c.bytes, Drain: 2 * time.Second}
		s.Run()
		<-done
		if s.Err != nil || srv.Err != nil {
			t.Fatalf("%s: client %v, server %v", c.name, s.Err, srv.Err)
		}
		r := s.Result
		if c.bytes > 0 && r.BytesSent != c.bytes {
			t.Errorf("%s: sent %d bytes, want %d", c.name, r.BytesSent, c.bytes)
		}
		if r.BytesSent == 0 || srv.Counts.BytesReceived != r.BytesSent {
			t.Errorf("%s: client sent %d bytes, server read %d", c.name, r.BytesSent, srv.Counts.BytesReceived)
		}
		if r.Elapsed < c.duration || r.Elapsed > c.duration+30*time.Second {
			t.Errorf("%s: elapsed %v", c.name, r.Elapsed)
		}
		if r.SendCalls < r.BytesSent/uint64(c.sendSize) {
			t.Errorf("%s: %d send calls for %d bytes of %d", c.name, r.SendCalls, r.BytesSent, c.sendSize)
		}
	}
}

// TestMaertsCounts: in TCP_MAERTS the client's interval ends exactly at the
// deadline; what it counted inside it plus what it drained afterwards is
// what the server sent. With a byte count the client gets exactly that.
func TestMaertsCounts(t *testing.T) {
	t.Run("timed", func(t *testing.T) {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		srv := &MaertsSource{FD: sfd, SendSize: 16384, Stop: &stop}
		done := make(chan struct{})
		go func() { srv.Run(); close(done) }()
		d := 300 * time.Millisecond
		m := &Maerts{Loop: Loop{Limits: Limits{Duration: d}}, FD: cfd, RecvSize: 65536}
		m.Run()
		stop.Store(true) // what the Stop control message does
		drained, closed := Drain(cfd, make([]byte, 65536), 2*time.Second)
		if !closed {
			t.Fatal("the server did not close after Stop")
		}
		m.Result.Drained += drained
		<-done
		r := m.Result
		if m.Err != nil || r.Elapsed != d || r.BytesReceived == 0 {
			t.Fatalf("err %v, elapsed %v, %d bytes", m.Err, r.Elapsed, r.BytesReceived)
		}
		if r.BytesReceived+r.Drained != srv.Counts.BytesSent {
			t.Errorf("client %d + drained %d != server sent %d", r.BytesReceived, r.Drained, srv.Counts.BytesSent)
		}
	})
	t.Run("byte count", func(t *testing.T) {
		cfd, sfd := tcpPair(t)
		var stop atomic.Bool
		const n = 1<<20 + 7
		srv := &MaertsSource{FD: sfd, SendSize: 10000, Bytes: n, Stop: &stop}
		done := make(chan struct{})
		go func() { srv.Run(); close(done) }()
		m := &Maerts{Loop: Loop{}, FD: cfd, RecvSize: 4096, Bytes: n}
		m.Run()
		<-done
		if m.Err != nil || m.Result.BytesReceived != n || srv.Counts.BytesSent != n {
			t.Fatalf("err %v: client got %d, server sent %d, want %d", m.Err, m.Result.BytesReceived, srv.Counts.BytesSent, n)
		}
	})
}

// TestUDPStreamCounts: with a pace the server can keep up with, every
// datagram the client sent is counted by the server, and the server stops
// on the end-of-test marker without being told.
func TestUDPStreamCounts(t *testing.T) {
	cfd, sfd := udpPair(t)
	if err := sock.RecvErr(cfd, unix.AF_INET); err != nil {
		t.Fatal(err)
	}
	// Room for every datagram (90) even at net.core.rmem_max's default,
	// which caps the 4 MiB asked for at 416 KiB: a server thread starved
	// for the whole test loses nothing.
	if err := unix.SetsockoptInt(sfd, unix.SOL_SOCKET, unix.SO_RCVBUF, 4<<20); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	srv := &UDPSink{FD: sfd, RecvSize: MaxDatagram, Stop: &stop}
	done := make(chan struct{})
	go func() { srv.Run(); close(done) }()
	u := &UDPStream{Loop: Loop{Limits: Limits{Duration: 300 * time.Millisecond}, Pace: NewPacer(300)}, FD: cfd, SendSize: 1200}
	u.Run()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // a hang guard: the marker ends it at once
		t.Fatal("the server did not end on the marker")
	}
	r, s := u.Result, srv.Counts
	if u.Err != nil || r.Elapsed != 300*time.Millisecond {
		t.Fatalf("err %v, elapsed %v", u.Err, r.Elapsed)
	}
	if r.SendCalls == 0 || s.RecvCalls != r.SendCalls || s.BytesReceived != r.BytesSent || r.BytesSent != 1200*r.SendCalls {
		t.Errorf("client sent %d datagrams (%d bytes), server got %d (%d bytes)", r.SendCalls, r.BytesSent, s.RecvCalls, s.BytesReceived)
	}
	if s.Markers == 0 {
		t.Error("no end-of-test marker arrived")
	}
}

// TestUDPStreamLoss: a server that does not read while the client sends,
// with a tiny receive buffer, loses datagrams; the server's count is what
// fitted in its buffer, and it ends after the quiet tick following Stop.
func TestUDPStreamLoss(t *testing.T) {
	cfd, sfd := udpPair(t)
	if err := unix.SetsockoptInt(sfd, unix.SOL_SOCKET, unix.SO_RCVBUF, 4096); err != nil {
		t.Fatal(err)
	}
	u := &UDPStream{Loop: Loop{}, FD: cfd, SendSize: 1000, Bytes: 500 * 1000}
	u.Run()
	var stop atomic.Bool
	stop.Store(true)
	srv := &UDPSink{FD: sfd, RecvSize: MaxDatagram, Stop: &stop}
	srv.Run()
	if u.Result.SendCalls != 500 {
		t.Fatalf("sent %d datagrams, want 500", u.Result.SendCalls)
	}
	if got := srv.Counts.RecvCalls; got == 0 || got >= 500 {
		t.Errorf("server counted %d of 500 datagrams through a 4 KiB buffer", got)
	}
}

// TestPacing: paced loops keep to the asked rate. A paced loop starts unit
// k no earlier than k/rate from its start (a stall only delays the
// schedule), so over elapsed it fits at most elapsed/period + 1 units:
// that bound is exact, and an unpaced loop far exceeds it. How close to it
// the loop gets is up to the CPU it is given (a loaded machine may starve
// it), so below it only half the rate is required, which a pacer that
// holds the loop back would still fail. The median latency must not hold the
// pacing wait; a loaded machine can only spoil that, never fake it, so
// each case has three tries.
func TestPacing(t *testing.T) {
	const d = 600 * time.Millisecond
	check := func(name string, rate float64, got uint64, elapsed time.Duration) error {
		most := uint64(elapsed/time.Duration(float64(time.Second)/rate)) + 1
		if got > most || float64(got) < rate*elapsed.Seconds()/2 {
			return fmt.Errorf("%s: %d in %v (%.1f/s), asked %.0f/s: want at most %d and at least half", name, got, elapsed,
				float64(got)/elapsed.Seconds(), rate, most)
		}
		return nil
	}
	t.Run("TCP_RR", func(t *testing.T) {
		tries(t, 3, func(t *testing.T) error {
			cfd, sfd := tcpPair(t)
			var stop atomic.Bool
			srv := &RRServer{FD: sfd, Request: 1, Response: 1, Stop: &stop}
			serve(t, &stop, srv.Run)
			rr := &RR{Loop: Loop{Limits: Limits{Duration: d}, Hist: hist.New(), Pace: NewPacer(500)}, FD: cfd, Request: 1, Response: 1}
			rr.Run()
			if err := check("TCP_RR", 500, rr.Result.Transactions, rr.Result.Elapsed); err != nil {
				return err
			}
			// The wait between transactions is not part of their latency:
			// a median of a period (2 ms) is one that holds it; half a
			// period leaves a loaded machine room for a loopback RR.
			if p50 := time.Duration(rr.Hist.Summary().P50 * 1e3); p50 > time.Millisecond {
				return fmt.Errorf("median latency %v: the pacing wait leaked into it", p50)
			}
			return nil
		})
	})
	t.Run("UDP_STREAM", func(t *testing.T) {
		tries(t, 3, func(t *testing.T) error {
			cfd, sfd := udpPair(t)
			var stop atomic.Bool
			srv := &UDPSink{FD: sfd, RecvSize: MaxDatagram, Standing: true, Stop: &stop}
			serve(t, &stop, srv.Run)
			u := &UDPStream{Loop: Loop{Limits: Limits{Duration: d}, Pace: NewPacer(3000)}, FD: cfd, SendSize: 100}
			u.Run()
			return check("UDP_STREAM", 3000, u.Result.SendCalls, u.Result.Elapsed)
		})
	})
}

// tries runs attempt up to n times, each as its own subtest (so its
// cleanups run before the next), and fails with the last error if none
// succeeded. It is for checks of timing that interference on a shared
// machine can only spoil, never fake.
func tries(t *testing.T, n int, attempt func(t *testing.T) error) {
	t.Helper()
	var last error
	for i := 1; i <= n; i++ {
		var err error
		t.Run(fmt.Sprintf("try%d", i), func(t *testing.T) { err = attempt(t) })
		if err == nil {
			return
		}
		last = err
		t.Logf("try %d: %v", i, err)
	}
	t.Error(last)
}

// TestInterim: a 1 s test sampled every 200 ms takes at most one sample in
// each interval, at its first completion after the interval's start (so
// later and with more work than the one before), and ends with the whole
// test. Five samples on an idle machine; a loaded one that stalls the loop
// across a boundary takes fewer, never more.
func TestInterim(t *testing.T) {
	cfd, sfd := tcpPair(t)
	var stop atomic.Bool
	srv := &RRServer{FD: sfd, Request: 1, Response: 1, Stop: &stop}
	serve(t, &stop, srv.Run)
	const every = 200 * time.Millisecond
	iv := NewInterim(every, time.Second)
	rr := &RR{Loop: Loop{Limits: Limits{Duration: time.Second}, Interim: iv}, FD: cfd, Request: 1, Response: 1}
	rr.Run()
	got := iv.Samples()
	t.Logf("%d samples: %v", len(got), got)
	if len(got) < 1 || len(got) > 5 {
		t.Fatalf("%d samples, want 1 to 5: %v", len(got), got)
	}
	// The last sample is the whole test, unless the one at the last
	// boundary came within a tenth of an interval of the end (then a
	// final one would mean nothing and is not taken).
	last, boundary := got[len(got)-1], got[:len(got)-1]
	switch {
	case last.At == rr.Result.Elapsed && last.Count == rr.Result.Transactions:
	case last.At < rr.Result.Elapsed && rr.Result.Elapsed-last.At < every/10 && last.Count <= rr.Result.Transactions:
		boundary = got
	default:
		t.Errorf("last sample %+v, result %d transactions in %v", last, rr.Result.Transactions, rr.Result.Elapsed)
	}
	for i, s := range boundary {
		if s.At < every || i > 0 && (s.At/every <= got[i-1].At/every || s.Count <= got[i-1].Count) {
			t.Errorf("sample %d %+v after %+v: want one per interval, in the interval it marks, with more work", i, s, got[max(i-1, 0)])
		}
	}
}
