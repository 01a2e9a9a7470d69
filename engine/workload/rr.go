package workload

import (
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// maxBuf bounds the buffers a loop allocates for batched requests/responses.
const maxBuf = 4 << 20

// RR is the client loop of TCP_RR: a request and its response on one
// long-lived connection, with Burst more requests kept in flight beyond the
// first (netperf's -b), matched to responses in order.
type RR struct {
	Loop
	FD       int // the connected data socket
	Request  int // request size in bytes
	Response int // response size in bytes
	Burst    int // requests in flight beyond the first

	req  []byte          // Burst+1 requests back to back
	rbuf []byte          // receive buffer
	sent []time.Duration // ring of send times, one per request in flight
}

// Prepare allocates the loop's buffers; Run allocates nothing after it.
func (r *RR) Prepare() {
	slots := r.Burst + 1
	r.req = make([]byte, clampBuf(slots*r.Request, r.Request))
	r.rbuf = make([]byte, clampBuf(slots*r.Response, r.Response))
	r.sent = make([]time.Duration, slots)
}

func clampBuf(want, atLeast int) int {
	if want > maxBuf {
		want = maxBuf
	}
	if want < atLeast {
		want = atLeast
	}
	return want
}

// Run runs the measured interval. Counts, the first error (if the loop ended
// early) and the histogram are left in r.Loop.
func (r *RR) Run() {
	r.init()
	if r.req == nil {
		r.Prepare()
	}
	slots := len(r.sent)
	var issued, inflight, head, partial int
	var issuedN uint64
	limit := r.Limits.Transactions
	// issue sends k more requests, all stamped with the same instant.
	issue := func(k int, now time.Duration) unix.Errno {
		if limit > 0 && issuedN+uint64(k) > limit {
			k = int(limit - issuedN)
		}
		for i := 0; i < k; i++ {
			r.sent[(head+inflight)%slots] = now
			inflight++
		}
		issuedN += uint64(k)
		issued = k
		for k > 0 {
			m := k
			if m*r.Request > len(r.req) {
				m = len(r.req) / r.Request
			}
			if en := r.sendAll(r.FD, r.req[:m*r.Request]); en != 0 {
				return en
			}
			k -= m
		}
		return 0
	}
	_ = issued
	if en := issue(slots, 0); en != 0 {
		r.fail("send", en)
		r.finish(false)
		return
	}
	byDeadline := false
	for inflight > 0 {
		n, en := sock.Read(r.FD, r.rbuf)
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				if r.stopped() {
					break
				}
				if time.Since(r.Start) >= r.dead {
					byDeadline = true
					r.Result.Discarded += uint64(inflight)
					break
				}
				continue
			}
			r.fail("recv", en)
			break
		}
		if n == 0 {
			r.Err = peerError{"recv"}
			break
		}
		r.Result.BytesReceived += uint64(n)
		partial += n
		if partial < r.Response {
			continue
		}
		now := time.Since(r.Start)
		completed := 0
		for partial >= r.Response && inflight > 0 {
			partial -= r.Response
			lat := now - r.sent[head]
			head = (head + 1) % slots
			inflight--
			completed++
			if r.done(now, lat) {
				r.last = now
			} else {
				byDeadline = true
			}
		}
		if byDeadline {
			r.Result.Discarded += uint64(inflight)
			break
		}
		if r.stopped() {
			break
		}
		if en := issue(completed, now); en != 0 {
			if en == unix.EAGAIN { // gave up: stopped or past the deadline
				byDeadline = !r.stopped()
				r.Result.Discarded += uint64(inflight)
				break
			}
			r.fail("send", en)
			break
		}
	}
	r.finish(byDeadline)
}

// fail records the first hard error of the loop.
func (l *Loop) fail(op string, en unix.Errno) {
	l.Result.Errors.Add(en)
	if l.Err == nil {
		l.Err = &sock.OpError{Op: op, Err: en}
	}
}

// RRServer is the server loop of TCP_RR: it answers every complete request
// with a response until the client closes the connection or Stop is set.
type RRServer struct {
	FD       int
	Request  int
	Response int
	Burst    int // the client's burst, to size the batch buffers
	Stop     *atomic.Bool
	Counts   ServerCounts
	Err      error

	rbuf []byte
	resp []byte
}

// Prepare allocates the loop's buffers.
func (s *RRServer) Prepare() {
	slots := s.Burst + 1
	s.rbuf = make([]byte, clampBuf(slots*s.Request, s.Request))
	s.resp = make([]byte, clampBuf(slots*s.Response, s.Response))
}

// Run serves until end of stream, an error, or Stop.
func (s *RRServer) Run() {
	if s.rbuf == nil {
		s.Prepare()
	}
	partial := 0
	for {
		n, en := sock.Read(s.FD, s.rbuf)
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				if s.Stop.Load() {
					return
				}
				continue
			}
			s.Counts.Errors.Add(en)
			if en != unix.ECONNRESET {
				s.Err = fmt.Errorf("recv: %w", en)
			}
			return
		}
		if n == 0 {
			return
		}
		s.Counts.BytesReceived += uint64(n)
		partial += n
		k := partial / s.Request
		partial -= k * s.Request
		for k > 0 {
			m := k
			if m*s.Response > len(s.resp) {
				m = len(s.resp) / s.Response
			}
			if !s.write(s.resp[:m*s.Response]) {
				return
			}
			s.Counts.Transactions += uint64(m)
			k -= m
		}
	}
}

func (s *RRServer) write(b []byte) bool {
	for len(b) > 0 {
		n, en := sock.Write(s.FD, b)
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				if s.Stop.Load() {
					return false
				}
				continue
			}
			s.Counts.Errors.Add(en)
			if en != unix.EPIPE && en != unix.ECONNRESET {
				s.Err = fmt.Errorf("send: %w", en)
			}
			return false
		}
		s.Counts.BytesSent += uint64(n)
		b = b[n:]
	}
	return true
}
