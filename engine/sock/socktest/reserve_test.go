package socktest

import (
	"fmt"
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// bindReuse binds a socket of type typ to 127.0.0.1:port with SO_REUSEADDR
// (and listens, for TCP), as the servers the reserved ports are for do.
func bindReuse(t *testing.T, typ, port int, reuse bool) (int, error) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if reuse {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return -1, err
	}
	if typ == unix.SOCK_STREAM {
		return fd, unix.Listen(fd, 8)
	}
	return fd, nil
}

// TestReserveRun: the reserved ports are consecutive; a bind without
// SO_REUSEADDR is refused on each; a server that binds with it listens and
// gets the connections and the datagrams, none of which reach the holders.
func TestReserveRun(t *testing.T) {
	p := ReserveRun(t, 3, true)
	for i := 0; i < 3; i++ {
		for _, typ := range []int{unix.SOCK_STREAM, unix.SOCK_DGRAM} {
			if _, err := bindReuse(t, typ, p+i, false); err != unix.EADDRINUSE {
				t.Errorf("port %d (type %d): a bind without SO_REUSEADDR gave %v, want EADDRINUSE", p+i, typ, err)
			}
		}
	}
	lfd, err := bindReuse(t, unix.SOCK_STREAM, p+1, true)
	if err != nil {
		t.Fatalf("a server with SO_REUSEADDR on a reserved port: %v", err)
	}
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p+1), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if fd, _, err := unix.Accept(lfd); err != nil {
		t.Errorf("the server did not get the connection: %v", err)
	} else {
		unix.Close(fd)
	}
	ufd, err := bindReuse(t, unix.SOCK_DGRAM, p, true)
	if err != nil {
		t.Fatalf("a UDP server with SO_REUSEADDR on a reserved port: %v", err)
	}
	u, err := net.Dial("udp", fmt.Sprintf("127.0.0.1:%d", p))
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	for i := 0; i < 3; i++ {
		u.Write([]byte{byte(i)})
	}
	unix.SetsockoptTimeval(ufd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 10})
	buf := make([]byte, 8)
	for i := 0; i < 3; i++ {
		if n, _, err := unix.Recvfrom(ufd, buf, 0); err != nil || n != 1 || buf[0] != byte(i) {
			t.Fatalf("datagram %d: %d bytes %v, %v", i, n, buf[:max(n, 0)], err)
		}
	}
}
