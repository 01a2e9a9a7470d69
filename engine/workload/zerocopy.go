package workload

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/result"
	"netscript/engine/sock"
)

// zeroCopyReapEvery is how many MSG_ZEROCOPY sends go between reads of the
// error queue's completions (and a full queue, ENOBUFS, reads it at once).
const zeroCopyReapEvery = 32

// zeroCopyWait bounds the wait for the last completions after the loop.
const zeroCopyWait = 2 * time.Second

// write sends b, with MSG_ZEROCOPY when asked; or as many bytes from the
// file of TCP_SENDFILE.
func (s *Stream) write(b []byte) (int, unix.Errno) {
	switch {
	case s.File != nil:
		return s.File.send(s.FD, len(b))
	case s.ZeroCopy == nil:
		return sock.Write(s.FD, b)
	}
	return zeroCopySend(s.ZeroCopy, b)
}

// write sends b, with MSG_ZEROCOPY when asked.
func (u *UDPStream) write(b []byte) (int, unix.Errno) {
	if u.ZeroCopy == nil {
		return sock.Write(u.FD, b)
	}
	return zeroCopySend(u.ZeroCopy, b)
}

func zeroCopySend(z *sock.ZeroCopy, b []byte) (int, unix.Errno) {
	n, en := z.Send(b)
	if en == 0 && z.Sends%zeroCopyReapEvery == 0 {
		z.Reap() // after a send that counted, so a retried failure reaps nothing more
	}
	return n, en
}

// zeroCopyDone collects the last completions, after the measured
// interval, and counts them.
func (s *Stream) zeroCopyDone() { zeroCopyCount(s.ZeroCopy, &s.Result) }

// zeroCopyDone collects the last completions, after the measured
// interval, and counts them.
func (u *UDPStream) zeroCopyDone() { zeroCopyCount(u.ZeroCopy, &u.Result) }

func zeroCopyCount(z *sock.ZeroCopy, c *Counts) {
	if z == nil {
		return
	}
	z.Finish(zeroCopyWait)
	c.ZeroCopy.Sends, c.ZeroCopy.Completed, c.ZeroCopy.Copied = z.Sends, z.Completed, z.Copied
}

// startZeroCopy turns MSG_ZEROCOPY on when asked; false if the kernel
// refused it (the loop's error says so).
func (s *MaertsSource) startZeroCopy() bool {
	if !s.ZeroCopy {
		return true
	}
	z, err := sock.NewZeroCopy(s.FD)
	if err != nil {
		s.Err = fmt.Errorf("zerocopy: the server's kernel refused it: %w", err)
		return false
	}
	s.zc = z
	return true
}

// write sends b, with MSG_ZEROCOPY when asked.
func (s *MaertsSource) write(b []byte) (int, unix.Errno) {
	if s.zc == nil {
		return sock.Write(s.FD, b)
	}
	return zeroCopySend(s.zc, b)
}

// zeroCopyDone collects the last completions and counts them.
func (s *MaertsSource) zeroCopyDone() {
	if s.zc == nil {
		return
	}
	s.zc.Finish(zeroCopyWait)
	s.Counts.ZeroCopy = result.ZeroCopy{Sends: s.zc.Sends, Completed: s.zc.Completed, Copied: s.zc.Copied}
}
