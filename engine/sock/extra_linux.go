package sock

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Sleeper sleeps the calling thread with raw nanosleep(2) calls, so a paced
// loop waits without entering the Go scheduler and without allocating: the
// timespec lives in the Sleeper, which the loop allocates once.
type Sleeper struct {
	ts unix.Timespec
}

// Sleep sleeps for d, at most Tick at a time (so the thread never blocks
// longer than the data path's bound). It returns early, with EINTR, if a
// signal arrives; callers recompute what is left and call again.
func (s *Sleeper) Sleep(d time.Duration) unix.Errno {
	if d <= 0 {
		return 0
	}
	if d > Tick {
		d = Tick
	}
	s.ts.Sec = int64(d / time.Second)
	s.ts.Nsec = int64(d % time.Second)
	_, e := rawSyscall6(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&s.ts)), 0, 0, 0, 0, 0)
	return e
}

// FineTimers asks the kernel to wake the calling thread's timed sleeps on
// time (a timer slack of 1 ns instead of the default 50 µs), for paced
// loops. It applies to the calling OS thread only.
func FineTimers() error {
	return unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
}

// TCP_INFO's flags that tell how a connection's Fast Open went.
const (
	tcpiOptSynData = 0x20 // TCPI_OPT_SYN_DATA: data in the SYN was acknowledged

	// Values of tcpi_fastopen_client_fail (Linux 5.5 and later).
	FastOpenCookieUnavailable = 1 // no cookie was cached: the SYN asked for one and carried no data
	FastOpenDataNotAcked      = 2 // the SYN carried data the server did not take
	FastOpenSynRetransmitted  = 3 // the SYN with data was retransmitted
)

// FastOpenState is what TCP_INFO says about one connection's Fast Open.
type FastOpenState struct {
	SynData    bool  // the SYN's data was taken by the server (client) or came in the SYN (server)
	ClientFail uint8 // one of the FastOpen* values, 0 if none applies
}

// TCPInfo reads the first bytes of TCP_INFO with a raw getsockopt(2) into a
// buffer it owns, so it can run per connection without allocating.
type TCPInfo struct {
	buf [8]byte
	n   uint32
}

// FastOpen reads fd's Fast Open flags: tcpi_options (byte 5) and the
// tcpi_fastopen_client_fail bits (bits 1-2 of byte 7 on little-endian
// machines, which are the ones netscript runs on).
func (t *TCPInfo) FastOpen(fd int) (FastOpenState, unix.Errno) {
	t.n = uint32(len(t.buf))
	t.buf = [8]byte{}
	_, e := rawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.IPPROTO_TCP, unix.TCP_INFO,
		uintptr(unsafe.Pointer(&t.buf[0])), uintptr(unsafe.Pointer(&t.n)), 0)
	if e != 0 {
		return FastOpenState{}, e
	}
	return FastOpenState{
		SynData:    t.buf[5]&tcpiOptSynData != 0,
		ClientFail: (t.buf[7] >> 1) & 3,
	}, 0
}

// ListenFastOpen lets the listener fd accept data in SYNs (TCP_FASTOPEN)
// with a queue of qlen pending Fast Open connections.
func ListenFastOpen(fd, qlen int) error {
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_FASTOPEN, qlen); err != nil {
		return &OpError{Op: "setsockopt TCP_FASTOPEN", Err: err}
	}
	return nil
}

// RecvErr sets IP_RECVERR (IPV6_RECVERR) on a UDP socket, as netperf's
// enable_enobufs does: a datagram the local stack drops (a full queue on the
// way out) then fails its send with ENOBUFS instead of vanishing silently,
// so it is counted as refused and not as sent.
func RecvErr(fd, family int) error {
	level, opt, name := unix.IPPROTO_IP, unix.IP_RECVERR, "IP_RECVERR"
	if family == unix.AF_INET6 {
		level, opt, name = unix.IPPROTO_IPV6, unix.IPV6_RECVERR, "IPV6_RECVERR"
	}
	if err := unix.SetsockoptInt(fd, level, opt, 1); err != nil {
		return &OpError{Op: "setsockopt " + name, Err: err}
	}
	return nil
}

// SendEmpty sends a zero-length datagram on the connected socket fd (the
// end-of-test marker of UDP_STREAM).
func SendEmpty(fd int) unix.Errno {
	_, e := rawSyscall6(unix.SYS_SENDTO, uintptr(fd), 0, 0, 0, 0, 0)
	return e
}
