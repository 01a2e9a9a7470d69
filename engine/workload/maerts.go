package workload

import (
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// Maerts is the client loop of TCP_MAERTS: the server sends, the client
// receives RecvSize bytes at a time and counts what arrives inside the
// measured interval, which ends exactly at the deadline (or when the server
// closes after sending a byte count). What arrives after the deadline is
// read by Drain and counted apart, so that the client's two counts add up to
// what the server sent.
type Maerts struct {
	Loop
	FD       int
	RecvSize int
	Bytes    uint64 // the server sends this many bytes and closes; 0: by time
	// Link, if set, joins the loop to the sender of a test both ways on
	// the same socket (bidir.go): after the interval the loop drains
	// until the server's close, at most Drain, and says when it came.
	Link  *BidirLink
	Drain time.Duration

	buf []byte
}

// Prepare allocates the loop's buffer.
func (m *Maerts) Prepare() { m.buf = make([]byte, clampBuf(m.RecvSize, 1)) }

// Run runs the measured interval.
func (m *Maerts) Run() {
	m.init()
	if m.buf == nil {
		m.Prepare()
	}
	byDeadline, closed := false, false
	for {
		n, en := sock.Read(m.FD, m.buf)
		now := time.Since(m.Start)
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				if m.stopped() {
					break
				}
				if now >= m.dead {
					byDeadline = true
					break
				}
				continue
			}
			m.fail("recv", en)
			break
		}
		if n == 0 { // the server sent its byte count and closed
			if m.bidirEOF() && (m.Bytes == 0 || m.Result.BytesReceived >= m.Bytes) {
				// A timed test's sender half-closed at its deadline,
				// which is this loop's (its start may lag the
				// sender's by a thread's start-up: the interval is
				// the sender's).
				closed, byDeadline = true, m.Bytes == 0
				break
			}
			if m.Bytes == 0 || m.Result.BytesReceived < m.Bytes {
				m.Err = peerError{"recv"}
			}
			break
		}
		if now >= m.dead {
			m.Result.Drained += uint64(n)
			byDeadline = true
			break
		}
		m.Result.BytesReceived += uint64(n)
		m.Result.RecvCalls++
		m.last = now
		m.progress(now, m.Result.BytesReceived)
		if m.stopped() {
			break
		}
	}
	if byDeadline {
		m.Result.Elapsed = m.dead
	} else {
		m.Result.Elapsed = m.last
	}
	if m.Interim != nil {
		m.Interim.final(m.Result.Elapsed, m.Result.BytesReceived)
	}
	if m.Live != nil {
		m.pubAt = 0
		m.publish(m.Result.Elapsed)
	}
	if m.Link != nil && closed {
		m.Link.close(time.Since(m.Start), true, nil)
	} else if m.Link != nil {
		m.bidirDrain(m.Drain)
	}
}

// Drain reads fd until its peer closes it or timeout passes, into buf, and
// returns the bytes read and whether the close was seen. A TCP_MAERTS
// client reads with it what the server sent after the measured interval;
// a TCP_RR client what is left after it half-closed.
func Drain(fd int, buf []byte, timeout time.Duration) (uint64, bool) {
	got, _, closed := drainErr(fd, buf, timeout)
	return got, closed
}

// drainErr is Drain that also returns the error that ended it, if one did.
func drainErr(fd int, buf []byte, timeout time.Duration) (uint64, unix.Errno, bool) {
	var got uint64
	deadline := time.Now().Add(timeout)
	for {
		n, en := sock.Read(fd, buf)
		if en == unix.EAGAIN || en == unix.EINTR {
			if time.Now().After(deadline) {
				return got, 0, false
			}
			continue
		}
		if en != 0 || n == 0 {
			return got, en, en == 0
		}
		got += uint64(n)
	}
}

// MaertsSource is the server loop of TCP_MAERTS: sends of SendSize bytes
// until Stop, Bytes sent, or the client goes away; then it half-closes so
// the client sees the end of the data.
type MaertsSource struct {
	FD       int
	SendSize int
	Bytes    uint64 // send exactly this many bytes; 0: until Stop
	Pace     *Pacer // if set, paces the sends
	Stop     *atomic.Bool
	ServerOutcome

	buf []byte

	// ZeroCopy sends with MSG_ZEROCOPY (zerocopy.go).
	ZeroCopy bool
	zc       *sock.ZeroCopy
	// holdClose: having sent Bytes, wait for Stop before closing the
	// sending side (a test both ways, whose close says that every byte
	// of the other direction was read: bidir.go).
	holdClose bool
	// looped, if set, is closed when the sending loop ends, before any
	// hold (a test both ways by a count of bytes waits for it).
	looped chan struct{}
}

// Prepare allocates the loop's buffer.
func (s *MaertsSource) Prepare() {
	s.buf = make([]byte, clampBuf(s.SendSize, 1))
	for i := range s.buf {
		s.buf[i] = byte(i)
	}
}

// Run sends until told to stop.
func (s *MaertsSource) Run() {
	if s.buf == nil {
		s.Prepare()
	}
	defer sock.Shutdown(s.FD, unix.SHUT_WR)
	defer s.hold()
	if s.looped != nil {
		defer close(s.looped)
	}
	if !s.startZeroCopy() {
		return
	}
	defer s.zeroCopyDone()
	start := time.Now()
	forever := time.Duration(1<<63 - 1)
	for !s.Stop.Load() {
		if s.Bytes > 0 && s.Counts.BytesSent >= s.Bytes {
			return
		}
		if s.Pace != nil {
			if _, ok := s.Pace.Wait(start, forever, s.Stop); !ok {
				return
			}
		}
		b := s.buf
		if left := s.Bytes - s.Counts.BytesSent; s.Bytes > 0 && left < uint64(len(b)) {
			b = b[:left]
		}
		n, en := s.write(b)
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				continue
			}
			s.Counts.Errors.Add(en)
			if en != unix.EPIPE && en != unix.ECONNRESET {
				s.Err = fmt.Errorf("send: %w", en)
			}
			return
		}
		s.Counts.BytesSent += uint64(n)
		s.Counts.SendCalls++
	}
}

// hold waits, when the loop holds its close, for Stop.
func (s *MaertsSource) hold() {
	for s.holdClose && !s.Stop.Load() {
		time.Sleep(time.Millisecond)
	}
}
