package sock

import (
	"net/netip"
	"time"

	"golang.org/x/sys/unix"
)

// Tick bounds how long any blocking call of the data path may block: every
// data socket carries it as its receive and send timeout, so a worker wakes
// at least this often to see whether it should stop.
const Tick = 50 * time.Millisecond

// Options are the per-socket settings of a test.
type Options struct {
	NoDelay    bool // TCP_NODELAY
	SendBuffer int  // SO_SNDBUF to ask for; 0 keeps the kernel's default
	RecvBuffer int  // SO_RCVBUF to ask for; 0 keeps the kernel's default
	ReuseAddr  bool // SO_REUSEADDR before bind
	MPTCP      bool // a stream socket of IPPROTO_MPTCP instead of TCP (mptcp_linux.go)
}

// Buffers are the socket buffer sizes the kernel actually granted, as
// getsockopt reports them (Linux doubles what was asked for).
type Buffers struct {
	Send int
	Recv int
}

// Open creates a socket of the family and type (unix.SOCK_STREAM or
// unix.SOCK_DGRAM), applies opts and the Tick timeouts, and binds it to local
// if local is valid (address, port or both).
func Open(family, typ int, opts Options, local netip.AddrPort) (int, error) {
	fd, en := SocketProto(family, typ, opts.proto())
	if en != 0 {
		if opts.MPTCP {
			return -1, NoMPTCP(en)
		}
		return -1, &OpError{Op: "socket", Err: en}
	}
	if err := apply(fd, typ, opts); err != nil {
		Close(fd)
		return -1, err
	}
	if err := SetTick(fd, Tick); err != nil {
		Close(fd)
		return -1, err
	}
	if local.IsValid() && (!local.Addr().IsUnspecified() || local.Port() != 0) {
		la := NewAddr(local)
		if family == unix.AF_INET6 && la.Family() == unix.AF_INET {
			Close(fd)
			return -1, &OpError{Op: "bind", Addr: la.String(), Err: errFamily}
		}
		if en := Bind(fd, la); en != 0 {
			Close(fd)
			return -1, &OpError{Op: "bind", Addr: la.String(), Err: en}
		}
	}
	return fd, nil
}

type familyError struct{}

func (familyError) Error() string { return "local address family differs from the remote's" }

var errFamily error = familyError{}

func apply(fd, typ int, o Options) error {
	if o.ReuseAddr {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
			return &OpError{Op: "setsockopt SO_REUSEADDR", Err: err}
		}
	}
	if o.NoDelay && typ == unix.SOCK_STREAM {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
			return &OpError{Op: "setsockopt TCP_NODELAY", Err: err}
		}
	}
	if o.SendBuffer > 0 {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, o.SendBuffer); err != nil {
			return &OpError{Op: "setsockopt SO_SNDBUF", Err: err}
		}
	}
	if o.RecvBuffer > 0 {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, o.RecvBuffer); err != nil {
			return &OpError{Op: "setsockopt SO_RCVBUF", Err: err}
		}
	}
	return nil
}

// SetTick sets fd's receive and send timeouts to d, so blocking calls on it
// return EAGAIN after at most d.
func SetTick(fd int, d time.Duration) error {
	tv := unix.NsecToTimeval(d.Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return &OpError{Op: "setsockopt SO_RCVTIMEO", Err: err}
	}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv); err != nil {
		return &OpError{Op: "setsockopt SO_SNDTIMEO", Err: err}
	}
	return nil
}

// Granted reads the buffer sizes the kernel granted fd.
func Granted(fd int) Buffers {
	var b Buffers
	b.Send, _ = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF)
	b.Recv, _ = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF)
	return b
}

// LocalAddr returns the address fd is bound to.
func LocalAddr(fd int) netip.AddrPort {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return netip.AddrPort{}
	}
	return fromSockaddr(sa)
}

// PeerAddr returns the address fd is connected to.
func PeerAddr(fd int) netip.AddrPort {
	sa, err := unix.Getpeername(fd)
	if err != nil {
		return netip.AddrPort{}
	}
	return fromSockaddr(sa)
}

func fromSockaddr(sa unix.Sockaddr) netip.AddrPort {
	switch s := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(s.Addr), uint16(s.Port))
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(s.Addr).Unmap(), uint16(s.Port))
	}
	return netip.AddrPort{}
}

// Dial connects fd to remote, waiting at most timeout for the handshake. It
// is for set-up, outside any measured interval.
func Dial(fd int, remote *Addr, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	en := Connect(fd, remote)
	for en == unix.EINTR || en == unix.EINPROGRESS || en == unix.EALREADY || en == unix.EAGAIN {
		left := time.Until(deadline)
		if left <= 0 {
			return &OpError{Op: "connect", Addr: remote.String(), Err: unix.ETIMEDOUT}
		}
		ms := int(left / time.Millisecond)
		if ms > int(Tick/time.Millisecond) {
			ms = int(Tick / time.Millisecond)
		}
		ev, pen := Poll(fd, unix.POLLOUT, ms+1)
		if pen != 0 && pen != unix.EINTR {
			return &OpError{Op: "connect", Addr: remote.String(), Err: pen}
		}
		if ev == 0 {
			continue
		}
		if se := SoError(fd); se != 0 {
			en = se
			break
		}
		return nil
	}
	if en != 0 && en != unix.EISCONN {
		src := LocalAddr(fd)
		e := &OpError{Op: "connect", Addr: remote.String(), Err: en}
		if src.IsValid() && !src.Addr().IsUnspecified() {
			e.Source = src.String()
		}
		return e
	}
	return nil
}
