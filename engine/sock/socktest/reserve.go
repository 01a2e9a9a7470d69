// Package socktest holds what tests share about sockets: loopback ports
// that the kernel chose and that stay reserved for a program the test must
// tell a port number (a data port, a daemon's --data endpoint, the floor's
// server), with no moment at which another program could take them.
package socktest

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Reserve returns a port on 127.0.0.1 that the kernel chose, reserved until
// the test ends (see ReserveRun).
func Reserve(t testing.TB, udp bool) int {
	t.Helper()
	return ReserveRun(t, 1, udp)
}

// ReserveRun returns the first of n consecutive ports on 127.0.0.1, the
// first chosen by the kernel, each reserved until the test ends. A TCP
// socket (and with udp a UDP socket too) holds each port: bound with
// SO_REUSEADDR and never listening, the UDP one connected to a port where
// nothing runs so that it receives nothing. Anything that asks the kernel
// for a port avoids a held one, and a bind without SO_REUSEADDR fails; a
// program that binds the port with SO_REUSEADDR (netscript's server and
// the floor's do) binds it beside the holder, listens, and gets every
// connection and datagram.
func ReserveRun(t testing.TB, n int, udp bool) int {
	t.Helper()
	for try := 0; try < 100; try++ {
		first, fds, err := hold(n, udp)
		if err == nil {
			t.Cleanup(func() {
				for _, fd := range fds {
					unix.Close(fd)
				}
			})
			return first
		}
		if err != unix.EADDRINUSE {
			t.Fatalf("reserve %d loopback ports: %v", n, err)
		}
	}
	t.Fatalf("found no %d consecutive free loopback ports in 100 tries", n)
	return 0
}

// hold binds the holders of n consecutive ports, the first port chosen by
// the kernel; on failure it closes what it opened.
func hold(n int, udp bool) (int, []int, error) {
	var fds []int
	fail := func(err error) (int, []int, error) {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return 0, nil, err
	}
	first := 0
	for i := 0; i < n; i++ {
		types := []int{unix.SOCK_STREAM}
		if udp {
			types = append(types, unix.SOCK_DGRAM)
		}
		for _, typ := range types {
			port := 0
			if first > 0 {
				port = first + i
			}
			if port > 65535 {
				return fail(unix.EADDRINUSE)
			}
			fd, err := holder(typ, port)
			if err != nil {
				return fail(err)
			}
			fds = append(fds, fd)
			if first == 0 {
				sa, err := unix.Getsockname(fd)
				if err != nil {
					return fail(err)
				}
				first = sa.(*unix.SockaddrInet4).Port
			}
		}
	}
	return first, fds, nil
}

// holder binds a socket of type typ to 127.0.0.1:port with SO_REUSEADDR;
// a UDP one is then connected to the discard port, so it takes no
// datagram meant for whoever binds beside it.
func holder(typ, port int) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	loopback := [4]byte{127, 0, 0, 1}
	if err = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err == nil {
		err = unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: loopback})
	}
	if err == nil && typ == unix.SOCK_DGRAM {
		err = unix.Connect(fd, &unix.SockaddrInet4{Port: 9, Addr: loopback})
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
