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
// first (netperf's -b), matched to responses in order. As in netperf, each
// request is one send and each response is read on its own (a receive never
// asks for more than the rest of the current response), so the system calls
// per transaction are those netperf makes.
type RR struct {
	Loop
	FD       int // the connected data socket
	Request  int // request size in bytes
	Response int // response size in bytes
	Burst    int // requests in flight beyond the first

	req  []byte          // one request
	rbuf []byte          // one response
	sent []time.Duration // ring of send times, one per request in flight

	QuickAck bool // re-arm TCP_QUICKACK after each receive (quickack=True)
}

// Prepare allocates the loop's buffers; Run allocates nothing after it.
func (r *RR) Prepare() {
	r.req = make([]byte, r.Request)
	r.rbuf = make([]byte, clampBuf(r.Response, 1))
	r.sent = make([]time.Duration, r.Burst+1)
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
	var inflight, head, got int
	var issued uint64
	limit := r.Limits.Transactions
	// issue sends one more request, stamped with now, unless the count
	// limit has been reached.
	issue := func(now time.Duration) unix.Errno {
		if limit > 0 && issued >= limit {
			return 0
		}
		if r.paced() {
			var ok bool
			if now, ok = r.paceFrom(now); !ok {
				return unix.EAGAIN // gave up: stopped or past the deadline
			}
		}
		r.sent[(head+inflight)%slots] = now
		inflight++
		issued++
		return r.sendAll(r.FD, r.req)
	}
	byDeadline := false
	for i := 0; i < slots; i++ {
		if en := issue(0); en != 0 {
			if en == unix.EAGAIN {
				byDeadline = !r.stopped()
			} else {
				r.fail("send", en)
			}
			r.end(byDeadline, inflight, r.sent, head)
			return
		}
	}
	for inflight > 0 {
		want := r.Response - got
		if want > len(r.rbuf) {
			want = len(r.rbuf)
		}
		n, en := sock.Read(r.FD, r.rbuf[:want])
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				if r.stopped() {
					break
				}
				if time.Since(r.Start) >= r.dead {
					byDeadline = true
					break
				}
				continue
			}
			r.fail("recv", en)
			break
		}
		if r.QuickAck {
			sock.QuickAck(r.FD)
		}
		if n == 0 {
			r.Err = peerError{"recv"}
			break
		}
		r.Result.BytesReceived += uint64(n)
		got += n
		if got < r.Response {
			continue
		}
		got = 0
		now := time.Since(r.Start)
		lat := now - r.sent[head]
		head = (head + 1) % slots
		inflight--
		if !r.done(now, lat) {
			byDeadline = true
			break
		}
		r.last = now
		if r.stopped() {
			break
		}
		if en := issue(now); en != 0 {
			if en == unix.EAGAIN { // gave up: stopped or past the deadline
				byDeadline = !r.stopped()
				break
			}
			r.fail("send", en)
			break
		}
	}
	r.end(byDeadline, inflight, r.sent, head)
}

// fail records the first hard error of the loop.
func (l *Loop) fail(op string, en unix.Errno) {
	l.Result.Errors.Add(en)
	if l.Err == nil {
		l.Err = &sock.OpError{Op: op, Err: en}
	}
}

// RRServer is the server loop of TCP_RR: it reads each request on its own
// and answers it with one response, as netserver does, until the client
// closes the connection or Stop is set.
type RRServer struct {
	FD       int
	Request  int
	Response int
	Burst    int // the client's burst (informational)
	Stop     *atomic.Bool
	ServerOutcome

	rbuf []byte
	resp []byte

	QuickAck bool // re-arm TCP_QUICKACK after each receive (quickack=True)
}

// Prepare allocates the loop's buffers.
func (s *RRServer) Prepare() {
	s.rbuf = make([]byte, clampBuf(s.Request, 1))
	s.resp = make([]byte, s.Response)
}

// Run serves until end of stream, an error, or Stop.
func (s *RRServer) Run() {
	if s.rbuf == nil {
		s.Prepare()
	}
	got := 0
	for {
		want := s.Request - got
		if want > len(s.rbuf) {
			want = len(s.rbuf)
		}
		n, en := sock.Read(s.FD, s.rbuf[:want])
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
		if s.QuickAck {
			sock.QuickAck(s.FD)
		}
		if n == 0 {
			return
		}
		s.Counts.BytesReceived += uint64(n)
		got += n
		if got < s.Request {
			continue
		}
		got = 0
		if !s.write(s.resp) {
			return
		}
		s.Counts.Transactions++
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
