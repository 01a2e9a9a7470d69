package workload

import (
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// UDPStream is the client loop of UDP_STREAM on a connected UDP socket with
// IP_RECVERR set: datagrams of SendSize bytes until the deadline (or Bytes
// sent, or Stop). A send the local stack refuses (ENOBUFS when a queue on the
// way out is full, EAGAIN when the socket buffer stayed full for a tick) is
// counted in Result.Refused and not as sent, as netperf counts its failed
// sends. After the loop it sends end-of-test markers (zero-length
// datagrams) so the server can stop counting early.
type UDPStream struct {
	Loop
	FD       int
	SendSize int
	Bytes    uint64 // end after this many bytes sent; 0: by time

	buf []byte

	// ZeroCopy, if set, sends with MSG_ZEROCOPY (zerocopy.go).
	ZeroCopy *sock.ZeroCopy
}

// Markers is how many end-of-test datagrams UDPStream sends (netperf sends
// three too); the server needs only one.
const Markers = 3

// Prepare allocates the loop's buffer.
func (u *UDPStream) Prepare() {
	u.buf = make([]byte, clampBuf(u.SendSize, 1))
	for i := range u.buf {
		u.buf[i] = byte(i)
	}
}

// Run runs the measured interval.
func (u *UDPStream) Run() {
	u.init()
	if u.buf == nil {
		u.Prepare()
	}
	byDeadline := false
	for !u.stopped() {
		if u.Bytes > 0 && u.Result.BytesSent >= u.Bytes {
			break
		}
		if u.Pace != nil {
			if _, ok := u.pace(); !ok {
				byDeadline = !u.stopped()
				break
			}
		}
		b := u.buf
		if left := u.Bytes - u.Result.BytesSent; u.Bytes > 0 && left < uint64(len(b)) {
			b = b[:left]
		}
		n, en := u.write(b)
		now := time.Since(u.Start)
		if now >= u.dead {
			// Sent (or refused) after the deadline: the interval is over.
			if en == 0 {
				u.Result.BytesSent += uint64(n)
				u.Result.SendCalls++
			}
			byDeadline = true
			break
		}
		switch en {
		case 0:
			u.Result.BytesSent += uint64(n)
			u.Result.SendCalls++
			u.last = now
			u.progress(now, u.Result.BytesSent)
			continue
		case unix.EINTR:
			continue
		case unix.ENOBUFS, unix.ENOMEM, unix.EAGAIN:
			u.Result.Refused++
			u.Result.Errors.Add(en)
			continue
		case unix.ECONNREFUSED, unix.EHOSTUNREACH, unix.ENETUNREACH:
			// An ICMP error about an earlier datagram (IP_RECVERR):
			// nothing listens on the far side, or no route to it.
			u.Result.Errors.Add(en)
			continue
		}
		u.fail("send", en)
		break
	}
	u.finishStream(byDeadline)
	u.zeroCopyDone()
	for i := 0; i < Markers; i++ {
		sock.SendEmpty(u.FD)
	}
}

// finishStream sets the measured interval of a stream loop counted in bytes
// sent.
func (u *UDPStream) finishStream(byDeadline bool) {
	if byDeadline {
		u.Result.Elapsed = u.dead
	} else {
		u.Result.Elapsed = u.last
	}
	if u.Interim != nil {
		u.Interim.final(u.Result.Elapsed, u.Result.BytesSent)
	}
	if u.Live != nil {
		u.pubAt = 0
		u.publish(u.Result.Elapsed)
	}
}

// MaxDrain bounds how long a UDP_STREAM server keeps reading after the end
// of the test was signalled.
const MaxDrain = 2 * time.Second

// UDPSink is the server loop of UDP_STREAM: it counts every datagram and its
// bytes. The end of the test is signalled by an end-of-test marker from the
// client or by Stop; datagrams still in flight then (in a queue on the way,
// in the socket buffer) were sent inside the interval and are counted too:
// the loop ends at the first tick (sock.Tick) with nothing to read after the
// end was signalled, or MaxDrain after it. A Standing sink (no control
// connection) ignores markers and serves until Stop.
type UDPSink struct {
	FD       int
	RecvSize int
	Standing bool
	Allowed  *Allow // if set, only datagrams from these sources count (authenticated sessions)
	Stop     *atomic.Bool
	ServerOutcome

	buf  []byte
	from sock.Addr
}

// Prepare allocates the loop's buffer.
func (s *UDPSink) Prepare() { s.buf = make([]byte, clampBuf(s.RecvSize, 1)) }

// Run counts datagrams until the end of the test.
func (s *UDPSink) Run() {
	if s.buf == nil {
		s.Prepare()
	}
	var gate sourceGate
	ending := false
	var endAt time.Time
	var q quiet
	end := func() {
		if !ending {
			ending, endAt = true, time.Now()
			q.start(endAt)
		}
	}
	for {
		n, en := sock.RecvFrom(s.FD, s.buf, &s.from)
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				if ending && !s.Standing && q.over(time.Now()) {
					return // a quiet tick after the end
				}
				if s.Stop.Load() {
					if s.Standing {
						return
					}
					end()
				}
				continue
			}
			s.Counts.Errors.Add(en)
			if en == unix.EBADF || en == unix.EINVAL {
				s.Err = fmt.Errorf("recvfrom: %w", en)
				return
			}
			continue
		}
		if n == 0 {
			if s.Allowed != nil {
				s.from.Received()
				if !s.Allowed.Admits(s.from.AddrPort()) {
					s.Counts.Strangers++ // a stranger cannot end the test
					continue
				}
			}
			s.Counts.Markers++
			if !s.Standing {
				end()
			}
			continue
		}
		if !gate.admit(&s.from, s.Allowed, &s.Counts) {
			continue // not the authenticated client: not counted
		}
		s.Counts.BytesReceived += uint64(n)
		s.Counts.RecvCalls++
		if !s.Standing && !ending && s.Stop.Load() {
			end()
		}
		if ending {
			now := time.Now()
			if now.Sub(endAt) > MaxDrain {
				return
			}
			q.heard(now)
		}
	}
}
