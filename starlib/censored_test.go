package starlib_test

import (
	"errors"
	"io"
	"net"
	"strconv"
	"testing"
	"time"
)

// stallServer is the data side of tcp_rr(control=False) with 1-byte
// requests and responses: it answers each request at once, except the
// first that arrives hold after it accepted the connection (which comes
// before the client's measured interval starts), which it never answers:
// it then only reads until the client closes. It serves one connection.
func stallServer(t *testing.T, hold time.Duration) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		var b [1]byte
		accepted := time.Now()
		for {
			if _, err := io.ReadFull(c, b[:]); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Logf("stall server: %v", err)
				}
				return
			}
			if time.Since(accepted) >= hold {
				io.Copy(io.Discard, c) // held: never answered
				return
			}
			if _, err := c.Write(b[:]); err != nil {
				return
			}
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestStallAtTheDeadlineIsCensored: a transaction the server holds past the
// deadline is discarded, and result.censored gives its age.
func TestStallAtTheDeadlineIsCensored(t *testing.T) {
	port := stallServer(t, 1200*time.Millisecond)
	runStarFile(t, "testdata/censored/stall.star", map[string]string{"port": strconv.Itoa(port)})
}
