package netns

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFastOpen is what the package is for: TCP Fast Open enabled in the
// server's namespace only, proved by that namespace's own counters.
func TestFastOpen(t *testing.T) {
	noLeaks(t)
	const key = "net.ipv4.tcp_fastopen"
	hostBefore := hostSysctl(t, key)
	cli, srv := New(t, "tfo-cli"), New(t, "tfo-srv")
	Link(t, cli, srv, "198.18.0.1/24", "198.18.0.2/24")
	srv.Sysctl(t, key, "3")
	cli.Sysctl(t, key, "1")

	var ln net.Listener
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_FASTOPEN, 16)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	if err := srv.Do(func() (err error) {
		ln, err = lc.Listen(context.Background(), "tcp", "198.18.0.2:0")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() { // echo what each connection sends first
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 64)
			n, _ := c.Read(buf)
			c.Write(buf[:n])
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	// exchange sends msg with sendto(MSG_FASTOPEN) from cli, which puts it
	// in the SYN when a cookie is known, and reads the echo.
	exchange := func(msg string) {
		t.Helper()
		err := cli.Do(func() error {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			tv := unix.Timeval{Sec: 5}
			unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
			unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
			to := &unix.SockaddrInet4{Port: port, Addr: [4]byte{198, 18, 0, 2}}
			if err := unix.Sendto(fd, []byte(msg), unix.MSG_FASTOPEN, to); err != nil {
				return err
			}
			buf := make([]byte, 64)
			n, err := unix.Read(fd, buf)
			if err == nil && string(buf[:max(n, 0)]) != msg {
				t.Errorf("echo %q, want %q", buf[:max(n, 0)], msg)
			}
			return err
		})
		if err != nil {
			t.Fatalf("exchange %q: %v", msg, err)
		}
	}

	s0, c0 := srv.Counters(t), cli.Counters(t)
	exchange("first") // no cookie yet: the SYN asks for one
	s1, c1 := srv.Counters(t), cli.Counters(t)
	exchange("second") // data in the SYN
	s2, c2 := srv.Counters(t), cli.Counters(t)

	delta := func(a, b map[string]uint64, k string) uint64 { return b[k] - a[k] }
	if d := delta(s0, s1, "TcpExtTCPFastOpenCookieReqd"); d != 1 {
		t.Errorf("%s: TcpExtTCPFastOpenCookieReqd grew by %d on the first connection, want 1", srv, d)
	}
	if d := delta(s1, s2, "TcpExtTCPFastOpenPassive"); d != 1 {
		t.Errorf("%s: TcpExtTCPFastOpenPassive grew by %d on the second connection, want 1", srv, d)
	}
	if d := delta(c1, c2, "TcpExtTCPFastOpenActive"); d != 1 {
		t.Errorf("%s: TcpExtTCPFastOpenActive grew by %d on the second connection, want 1", cli, d)
	}
	if d := delta(c0, c1, "TcpExtTCPFastOpenActive"); d != 0 {
		t.Errorf("%s: TcpExtTCPFastOpenActive grew by %d on the first connection, want 0", cli, d)
	}
	if hostAfter := hostSysctl(t, key); hostAfter != hostBefore {
		t.Errorf("the machine's own %s changed from %s to %s", key, hostBefore, hostAfter)
	}
}
