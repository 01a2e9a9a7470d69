package sock

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// UNIX domain sockets. A name is written as the tools of the system write
// it: a path ("/run/netscript/1.sock"), or "@" and the rest for a name in
// the abstract namespace ("@netscript-1"), which has no file and vanishes
// with the last socket bound to it. A socket bound to no name has the name
// "".

// sunPathOffset is where sun_path begins in a sockaddr_un.
const sunPathOffset = int(unsafe.Offsetof(unix.RawSockaddrUnix{}.Path))

// MaxUnixName is the longest name a sockaddr_un holds: a path keeps a byte
// for its terminating NUL, an abstract name does not.
const MaxUnixName = len(unix.RawSockaddrUnix{}.Path) - 1

// NewUnixAddr builds the Addr of a UNIX domain socket's name: a path, or
// "@" and an abstract name.
func NewUnixAddr(name string) (*Addr, error) {
	if name == "" || name == "@" {
		return nil, errors.New("a UNIX domain socket needs a name")
	}
	if len(name) > MaxUnixName {
		return nil, fmt.Errorf("UNIX domain socket name %.20q... is %d bytes, at most %d fit", name, len(name), MaxUnixName)
	}
	a := &Addr{}
	r := a.raw.un()
	r.Family = unix.AF_UNIX
	for i := 0; i < len(name); i++ {
		r.Path[i] = int8(name[i])
	}
	a.rawLen = uint32(sunPathOffset + len(name))
	if name[0] == '@' {
		r.Path[0] = 0 // abstract: exactly the name's bytes, no NUL after
	} else {
		a.rawLen++ // a path with its NUL
	}
	return a, nil
}

// Name is a UNIX domain socket's name ("@..." for an abstract one), "" for
// an unnamed one or an address of another family.
func (a *Addr) Name() string {
	if !a.IsUnix() {
		return ""
	}
	return unixName(a.raw.un(), int(a.rawLen))
}

// unixName reads the name of a sockaddr_un of length n.
func unixName(r *unix.RawSockaddrUnix, n int) string {
	n -= sunPathOffset
	if n <= 0 {
		return ""
	}
	n = min(n, len(r.Path))
	b := make([]byte, 0, n)
	for i := 0; i < n; i++ {
		c := byte(r.Path[i])
		if i == 0 && c == 0 {
			b = append(b, '@')
			continue
		}
		if c == 0 && b[0] != '@' {
			break // a path ends at its NUL
		}
		b = append(b, c)
	}
	return string(b)
}

// LocalName is the name fd, a UNIX domain socket, is bound to ("" if none).
func LocalName(fd int) string {
	sa, err := unix.Getsockname(fd)
	if u, ok := sa.(*unix.SockaddrUnix); ok && err == nil {
		return u.Name
	}
	return ""
}

// PeerName is the name of the UNIX domain socket fd is connected to ("" if
// it has none).
func PeerName(fd int) string {
	sa, err := unix.Getpeername(fd)
	if u, ok := sa.(*unix.SockaddrUnix); ok && err == nil {
		return u.Name
	}
	return ""
}

// Autobind binds the UNIX domain socket fd to a name the kernel chooses in
// the abstract namespace, so that its peer can tell it apart (a stream
// connection's name is what the server sees) or answer it (a datagram
// socket's).
func Autobind(fd int) error {
	a := &Addr{}
	a.raw.un().Family = unix.AF_UNIX
	a.rawLen = uint32(sunPathOffset)
	if en := Bind(fd, a); en != 0 {
		return &OpError{Op: "bind", Addr: "an abstract name of the kernel's choice", Err: en}
	}
	return nil
}

// PeerPID is the process id of the peer of the connected UNIX domain
// socket fd, as the kernel recorded it when the connection was made
// (SO_PEERCRED); it cannot be forged by the peer. One raw getsockopt(2),
// without allocating.
func PeerPID(fd int) (int32, unix.Errno) {
	var c unix.Ucred
	n := uint32(unsafe.Sizeof(c))
	_, e := rawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), unix.SOL_SOCKET, unix.SO_PEERCRED,
		uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return 0, e
	}
	return c.Pid, 0
}
