package proto

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// A read deadline can pass in the middle of a frame: its header read and
// its payload not yet (on its way, or arrived a moment after the deadline:
// a read after the deadline fails even with bytes waiting). Recv keeps what
// it read of such a frame, so that the next Recv goes on from there;
// without it the next read would take the payload's bytes for a header, and
// every frame after it would be garbage. Callers that wait in slices and go
// on after a timeout (agent.awaitResult) depend on it.

// readFrame reads the next frame, first from what a Recv cut short by its
// deadline had read of it.
func (c *Conn) readFrame() (Type, []byte, error) {
	var r io.Reader = c.c
	if len(c.partial) > 0 {
		r = io.MultiReader(bytes.NewReader(c.partial), c.c)
	}
	var t Type
	var p, part []byte
	var err error
	if c.in != nil {
		t, p, part, err = c.readSealed(r, c.max())
	} else {
		t, p, part, err = readFrame(r, c.max())
	}
	c.partial = nil
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		c.partial = part
	}
	return t, p, err
}
