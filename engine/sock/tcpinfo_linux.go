package sock

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"netscript/engine/result"
)

// TCPReader reads TCP_INFO and TCP_CONGESTION with raw getsockopt(2)
// calls into buffers it owns, so it allocates nothing and can run once per
// connection (tcp_crr) or once per interim sample.
type TCPReader struct {
	info unix.TCPInfo
	n    uint32
	cc   [16]byte
}

// Info reads fd's TCP_INFO; the returned pointer is into r and valid until
// the next read.
func (r *TCPReader) Info(fd int) (*unix.TCPInfo, unix.Errno) {
	r.n = uint32(unsafe.Sizeof(r.info))
	r.info = unix.TCPInfo{}
	_, e := rawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_INFO,
		uintptr(unsafe.Pointer(&r.info)), uintptr(unsafe.Pointer(&r.n)), 0)
	if e != 0 {
		return nil, e
	}
	return &r.info, 0
}

// Conn reads fd's state into c: the counters as they stand (the caller
// subtracts a start reading for an interval) and the congestion control
// algorithm's name.
func (r *TCPReader) Conn(fd int, c *result.TCPConn) unix.Errno {
	if e := r.Stats(fd, c); e != 0 {
		return e
	}
	n := uint32(len(r.cc))
	r.cc = [16]byte{}
	if _, e := rawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION,
		uintptr(unsafe.Pointer(&r.cc[0])), uintptr(unsafe.Pointer(&n)), 0); e == 0 {
		c.Congestion = r.cc
	}
	return 0
}

// Handshaken reports whether the connection of the last reading had its
// SYN acknowledged (tcpi_bytes_acked counts the SYN's sequence number on
// an active open). It is false for a connect that was refused, reset or
// still in SYN-SENT: such a socket's cwnd, MSS and RTT are the kernel's
// defaults, not figures of a path. A passive open counts only data, so
// this tells nothing of the server's connections.
func (r *TCPReader) Handshaken() bool { return r.info.Bytes_acked > 0 }

// Stats is Conn without the algorithm's name: one system call.
func (r *TCPReader) Stats(fd int, c *result.TCPConn) unix.Errno {
	ti, e := r.Info(fd)
	if e != 0 {
		return e
	}
	connOf(ti, c)
	return 0
}

// connOf puts the figures of one TCP_INFO reading into c.
func connOf(ti *unix.TCPInfo, c *result.TCPConn) {
	*c = result.TCPConn{
		Retrans: uint64(ti.Total_retrans), BytesRetrans: ti.Bytes_retrans,
		RTT: ti.Rtt, RTTVar: ti.Rttvar, MinRTT: ti.Min_rtt, Cwnd: ti.Snd_cwnd, Ssthresh: ti.Snd_ssthresh,
		MSS: ti.Snd_mss, PacingRate: ti.Pacing_rate, DeliveryRate: ti.Delivery_rate,
		BusyTime: ti.Busy_time, RwndLimited: ti.Rwnd_limited, SndbufLimited: ti.Sndbuf_limited,
		Reordering: ti.Reordering, Lost: ti.Lost, Unacked: ti.Unacked, CAState: ti.Ca_state,
	}
}

// TCPSpan reads one long-lived connection's TCP_INFO at the start of the
// measured interval and again at its end, and adds the difference to sums.
type TCPSpan struct {
	r     TCPReader
	start result.TCPConn
	acked uint64 // tcpi_bytes_acked at Begin
	at    time.Time
	ok    bool
}

// StartRetrans is tcpi_total_retrans at Begin, and whether Begin read it.
func (s *TCPSpan) StartRetrans() (uint32, bool) { return uint32(s.start.Retrans), s.ok }

// StartAcked is tcpi_bytes_acked at Begin (0 if Begin read nothing).
func (s *TCPSpan) StartAcked() uint64 { return s.acked }

// Begin takes the start reading of fd.
func (s *TCPSpan) Begin(fd int) {
	s.ok = fd >= 0 && s.r.Conn(fd, &s.start) == 0
	s.acked = 0
	if s.ok {
		s.acked = s.r.info.Bytes_acked
	}
	s.at = time.Now()
}

// End takes the end reading of fd and adds the interval's figures to sums
// (nothing if either reading failed).
func (s *TCPSpan) End(fd int, sums *result.TCPSums) {
	var c result.TCPConn
	if !s.ok || s.r.Conn(fd, &c) != 0 {
		return
	}
	Since(&c, &s.start)
	sums.Add(&c)
	sums.SpanNs += uint64(time.Since(s.at))
	s.ok = false
}

// Since turns c's cumulative counters into differences from start.
func Since(c, start *result.TCPConn) {
	c.Retrans = sub(c.Retrans, start.Retrans)
	c.BytesRetrans = sub(c.BytesRetrans, start.BytesRetrans)
	c.BusyTime = sub(c.BusyTime, start.BusyTime)
	c.RwndLimited = sub(c.RwndLimited, start.RwndLimited)
	c.SndbufLimited = sub(c.SndbufLimited, start.SndbufLimited)
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// Retrans reads fd's tcpi_total_retrans and snd_cwnd, for an interim
// sample; ok is false if TCP_INFO could not be read.
func (r *TCPReader) Retrans(fd int) (retrans, cwnd uint32, ok bool) {
	ti, e := r.Info(fd)
	if e != 0 {
		return 0, 0, false
	}
	return ti.Total_retrans, ti.Snd_cwnd, true
}
