package proto

import (
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRecvResumesAfterADeadlineMidFrame: a read deadline that passes in the
// middle of a frame (inside its header, or between header and payload, or
// inside a payload past the eager size) is a timeout, and the next Recv
// returns that frame whole and then the next one: nothing read before the
// deadline is lost. agent.awaitResult waits in slices of a third of its
// bound and goes on after each timeout; a frame cut by one used to turn
// every later one into garbage ("malformed control frame: ... payload of
// 2071789567 bytes", as TestHeartbeatsKeepATestAlive met on a loaded
// machine).
func TestRecvResumesAfterADeadlineMidFrame(t *testing.T) {
	big := strings.Repeat("x", 3*eagerPayload)
	for _, c := range []struct {
		name string
		msg  Error
		cut  int // bytes of the frame written before the deadline
	}{
		{"inside the header", Error{Message: "hello"}, 2},
		{"after the header", Error{Message: "hello"}, 5},
		{"inside the payload", Error{Message: "hello"}, 9},
		{"inside a large payload", Error{Message: big}, 5 + 2*eagerPayload},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := net.Pipe()
			defer a.Close()
			defer b.Close()
			frame, err := AppendFrame(nil, TypeError, c.msg)
			if err != nil {
				t.Fatal(err)
			}
			next, _ := AppendFrame(nil, TypeHeartbeat, Heartbeat{})
			wrote := make(chan error, 1)
			go func() { _, err := a.Write(frame[:c.cut]); wrote <- err }()
			pc := NewConn(b)
			if _, _, err := pc.Recv(100 * time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("with %d of %d bytes sent: %v, want a timeout", c.cut, len(frame), err)
			}
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
			go func() { _, err := a.Write(append(frame[c.cut:], next...)); wrote <- err }()
			typ, p, err := pc.Recv(10 * time.Second)
			var got Error
			if err != nil || typ != TypeError || Decode(typ, p, &got) != nil || got.Message != c.msg.Message {
				t.Fatalf("after the timeout: %v %v, %d bytes of payload", typ, err, len(p))
			}
			if typ, _, err := pc.Recv(10 * time.Second); err != nil || typ != TypeHeartbeat {
				t.Fatalf("the frame after: %v %v", typ, err)
			}
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
		})
	}
}
