package netservertest

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestListeningPort: the port of the one listener this process holds is
// found, on either family; a process that never listens is an error once
// it has exited, not a hang.
func TestListeningPort(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ListeningPort(os.Getpid(), nil, 30*time.Second)
		if want := l.Addr().(*net.TCPAddr).Port; err != nil || got != want {
			t.Errorf("%s: port %d, %v; want %d", addr, got, err, want)
		}
		l.Close()
	}
	exited := make(chan struct{})
	close(exited)
	if _, err := ListeningPort(os.Getpid(), exited, 30*time.Second); err == nil || !strings.Contains(err.Error(), "exited before it listened") {
		t.Errorf("no listener, exited: %v", err)
	}
}

// TestStart: the netserver started answers on the port found.
func TestStart(t *testing.T) {
	for _, addr := range []string{"127.0.0.1", "::1"} {
		port := Start(t, addr)
		c, err := net.DialTimeout("tcp", net.JoinHostPort(addr, strconv.Itoa(port)), 30*time.Second)
		if err != nil {
			t.Fatalf("netserver on %s: %v", addr, err)
		}
		c.Close()
	}
}
