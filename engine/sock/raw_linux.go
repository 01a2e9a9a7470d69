package sock

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Read reads into b from the socket fd with a raw recvfrom(2) without an
// address (recv(2), a shorter path in the kernel than read(2)); it returns
// the count and the errno (0 on success). It never allocates.
func Read(fd int, b []byte) (int, unix.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	n, e := rawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// Write writes b to the socket fd with a raw sendto(2) without an address
// (send(2)).
func Write(fd int, b []byte) (int, unix.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	n, e := rawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// Recv reads with recvfrom(2) flags (for example MSG_DONTWAIT) and no address.
func Recv(fd int, b []byte, flags int) (int, unix.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	n, e := rawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(flags), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// RecvFrom reads one datagram and stores the sender's address in from.
func RecvFrom(fd int, b []byte, from *Addr) (int, unix.Errno) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	from.rawLen = uint32(unsafe.Sizeof(from.raw))
	n, e := rawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(p), uintptr(len(b)), 0,
		uintptr(unsafe.Pointer(&from.raw)), uintptr(unsafe.Pointer(&from.rawLen)))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// SendTo sends b to the address to with sendto(2) and the given flags.
func SendTo(fd int, b []byte, flags int, to *Addr) (int, unix.Errno) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	n, e := rawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(p), uintptr(len(b)), uintptr(flags),
		uintptr(unsafe.Pointer(&to.raw)), uintptr(to.rawLen))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// Socket opens a socket of the address's family with a raw socket(2); the
// descriptor is close-on-exec.
func Socket(family, typ int) (int, unix.Errno) { return SocketProto(family, typ, 0) }

// SocketProto is Socket of a given protocol (unix.IPPROTO_MPTCP; 0: the
// type's default).
func SocketProto(family, typ, proto int) (int, unix.Errno) {
	fd, e := rawSyscall6(unix.SYS_SOCKET, uintptr(family), uintptr(typ|unix.SOCK_CLOEXEC), uintptr(proto), 0, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), 0
}

// Sendfile sends up to n bytes of the file in from offset *off to the
// socket fd with a raw sendfile(2), advancing *off by what was sent; the
// data goes from the page cache to the socket without a copy through
// user space.
func Sendfile(fd, in int, off *int64, n int) (int, unix.Errno) {
	r, e := rawSyscall6(unix.SYS_SENDFILE, uintptr(fd), uintptr(in), uintptr(unsafe.Pointer(off)), uintptr(n), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}

// Connect connects fd to a with a raw connect(2).
func Connect(fd int, a *Addr) unix.Errno {
	_, e := rawSyscall6(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&a.raw)), uintptr(a.rawLen), 0, 0, 0)
	return e
}

// Bind binds fd to a with a raw bind(2).
func Bind(fd int, a *Addr) unix.Errno {
	_, e := rawSyscall6(unix.SYS_BIND, uintptr(fd), uintptr(unsafe.Pointer(&a.raw)), uintptr(a.rawLen), 0, 0, 0)
	return e
}

// Accept accepts a connection on the listening fd; if peer is not nil the
// peer's address is stored there.
func Accept(fd int, peer *Addr) (int, unix.Errno) {
	var rp, lp uintptr
	if peer != nil {
		peer.rawLen = uint32(unsafe.Sizeof(peer.raw))
		rp = uintptr(unsafe.Pointer(&peer.raw))
		lp = uintptr(unsafe.Pointer(&peer.rawLen))
	}
	nfd, e := rawSyscall6(unix.SYS_ACCEPT4, uintptr(fd), rp, lp, unix.SOCK_CLOEXEC, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(nfd), 0
}

// Close closes fd with a raw close(2).
func Close(fd int) unix.Errno {
	_, e := rawSyscall6(unix.SYS_CLOSE, uintptr(fd), 0, 0, 0, 0, 0)
	return e
}

// Shutdown shuts down part of a full-duplex connection (unix.SHUT_WR, ...).
func Shutdown(fd, how int) unix.Errno {
	_, e := rawSyscall6(unix.SYS_SHUTDOWN, uintptr(fd), uintptr(how), 0, 0, 0, 0)
	return e
}

// Poll waits up to timeoutMs for the events on fd and returns the events
// that are ready (0 on timeout). It uses ppoll(2), which every architecture
// has; a negative timeoutMs waits without a bound.
func Poll(fd int, events int16, timeoutMs int) (int16, unix.Errno) {
	pfd := unix.PollFd{Fd: int32(fd), Events: events}
	var n uintptr
	var e unix.Errno
	if timeoutMs < 0 {
		n, e = rawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, 0, 0, 8, 0)
	} else {
		ts := unix.NsecToTimespec(int64(timeoutMs) * 1e6)
		n, e = rawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 8, 0)
	}
	if e != 0 {
		return 0, e
	}
	if n == 0 {
		return 0, 0
	}
	return pfd.Revents, 0
}

// SoError returns and clears the pending error of fd (SO_ERROR).
func SoError(fd int) unix.Errno {
	v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		if en, ok := err.(unix.Errno); ok {
			return en
		}
		return unix.EINVAL
	}
	return unix.Errno(v)
}
