package client

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
)

// TestSessionBroke: how a control connection that ends during the test is
// told. A killed server resets the connection when our messages sit unread
// in its socket, and closes it otherwise; the user reads the same line.
func TestSessionBroke(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"eof", io.EOF, "the server closed the control connection during the test"},
		{"reset", reset, "the server closed the control connection during the test (reset)"},
		{"closed here", net.ErrClosed, "the control connection was closed"},
		{"other", errors.New("i/o timeout"), "the control connection failed during the test: i/o timeout"},
	} {
		if got := sessionBroke(message{err: tc.err}); got == nil || got.Error() != tc.want {
			t.Errorf("%s: sessionBroke = %v, want %q", tc.name, got, tc.want)
		}
	}
}
