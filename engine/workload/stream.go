package workload

import (
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// Stream is the client loop of TCP_STREAM: sends of SendSize bytes, as fast
// as the connection takes them (or at the pace of Loop.Pace), until the
// deadline, Bytes sent or Stop. Then, as netperf does, it half-closes the
// connection and waits for the server's close, which comes once the server
// has read every byte: the measured interval ends there, so the bytes sent
// are the bytes the server received and the time is the time they took.
type Stream struct {
	Loop
	FD       int
	SendSize int
	Bytes    uint64        // end after this many bytes instead; 0: by time
	Drain    time.Duration // bound on waiting for the server's close

	buf  []byte
	rbuf []byte

	// ZeroCopy, if set, sends with MSG_ZEROCOPY (zerocopy.go).
	ZeroCopy *sock.ZeroCopy
	// Link, if set, joins the loop to the receiver of a test both ways
	// on the same socket (bidir.go), which reads the server's close.
	Link *BidirLink
	// File, if set, is what the loop sends from with sendfile(2)
	// (TCP_SENDFILE, sendfile.go), SendSize bytes a call; Close closes it.
	File *FileSource
}

// Close frees what the loop holds beyond its socket: TCP_SENDFILE's file.
func (s *Stream) Close() {
	if s.File != nil {
		s.File.Close()
		s.File = nil
	}
}

// Prepare allocates the loop's buffer.
func (s *Stream) Prepare() {
	s.buf = make([]byte, clampBuf(s.SendSize, 1))
	for i := range s.buf {
		s.buf[i] = byte(i)
	}
	s.rbuf = make([]byte, 4096)
}

// Run runs the measured interval.
func (s *Stream) Run() {
	s.init()
	if s.buf == nil {
		s.Prepare()
	}
	now := time.Duration(0)
	for {
		if s.Bytes > 0 && s.Result.BytesSent >= s.Bytes {
			break
		}
		if s.Pace != nil {
			var ok bool
			if now, ok = s.pace(); !ok {
				break
			}
		}
		b := s.buf
		if left := s.Bytes - s.Result.BytesSent; s.Bytes > 0 && left < uint64(len(b)) {
			b = b[:left]
		}
		n, en := s.write(b)
		now = time.Since(s.Start)
		if en != 0 {
			if en == unix.EAGAIN || en == unix.EINTR {
				if s.stopped() || now >= s.dead {
					break
				}
				continue
			}
			s.fail("send", en)
			break
		}
		s.Result.BytesSent += uint64(n)
		s.Result.SendCalls++
		s.progress(now, s.Result.BytesSent)
		if now >= s.dead || s.stopped() {
			break
		}
	}
	if s.Interim != nil {
		s.Interim.final(now, s.Result.BytesSent)
	}
	s.last = now
	switch {
	case s.Err != nil:
	case s.Link != nil: // a test both ways: the receiver reads the close
		s.Link.sent.Store(true)
		if en := sock.Shutdown(s.FD, unix.SHUT_WR); en != 0 {
			s.fail("shutdown", en)
			s.Link.wait(s.Drain)
			break
		}
		s.bidirWait()
	default:
		s.closeAndWait()
	}
	s.zeroCopyDone()
	s.Result.Elapsed = s.last
	if s.Live != nil {
		s.pubAt = 0
		s.publish(s.Result.Elapsed)
	}
}

// closeAndWait half-closes the connection and reads until the server closes
// its side, which it does once it has read everything; the end of the
// measured interval is when that close arrives.
func (s *Stream) closeAndWait() {
	if en := sock.Shutdown(s.FD, unix.SHUT_WR); en != 0 {
		s.fail("shutdown", en)
		return
	}
	limit := time.Since(s.Start) + s.Drain
	for {
		n, en := sock.Read(s.FD, s.rbuf)
		now := time.Since(s.Start)
		if en == unix.EAGAIN || en == unix.EINTR {
			if now >= limit {
				s.Err = fmt.Errorf("the server did not close the data connection within %v after the last send", s.Drain)
				s.last = now
				return
			}
			continue
		}
		if en != 0 {
			s.fail("recv", en)
			return
		}
		if n == 0 {
			s.last = now
			return
		}
		s.Result.BytesReceived += uint64(n) // the server sends nothing; count it if it does
	}
}

// StreamSink is the server loop of TCP_STREAM: it reads and counts until the
// client half-closes, then closes its own side so the client knows every
// byte was read.
type StreamSink struct {
	FD       int
	RecvSize int
	Stop     *atomic.Bool
	ServerOutcome

	buf      []byte
	keepOpen bool // a test both ways: the sending loop closes the sending side
}

// Prepare allocates the loop's buffer.
func (s *StreamSink) Prepare() { s.buf = make([]byte, clampBuf(s.RecvSize, 1)) }

// Run serves until end of stream, an error or Stop.
func (s *StreamSink) Run() {
	if s.buf == nil {
		s.Prepare()
	}
	for {
		n, en := sock.Read(s.FD, s.buf)
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
			if !s.keepOpen {
				sock.Shutdown(s.FD, unix.SHUT_WR)
			}
			return
		}
		s.Counts.BytesReceived += uint64(n)
		s.Counts.RecvCalls++
	}
}
