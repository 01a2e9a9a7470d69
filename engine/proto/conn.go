package proto

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/flynn/noise"
)

// Conn is one control connection with framing, bounds and deadlines. Once
// Authenticate has agreed the session's keys, every frame is encrypted
// and authenticated (sealed.go).
type Conn struct {
	c        net.Conn
	MaxFrame int    // the largest payload accepted; DefaultMaxFrame if 0
	partial  []byte // what Recv read of a frame before its deadline cut it short (resume.go)

	wmu  sync.Mutex // one Send at a time: each takes the next nonce
	wbuf []byte
	sbuf []byte             // a sealed frame being written
	out  *noise.CipherState // this side's key, once agreed
	in   *noise.CipherState // the peer's
}

// NewConn wraps an established connection. Call Handshake before anything
// else.
func NewConn(c net.Conn) *Conn { return &Conn{c: c} }

// Net returns the underlying connection.
func (c *Conn) Net() net.Conn { return c.c }

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Handshake sends our preamble and checks the peer's within timeout. A
// server (isServer) that meets another version sends an Error explaining it
// before returning a *VersionError.
func (c *Conn) Handshake(timeout time.Duration, isServer bool) error {
	c.c.SetDeadline(time.Now().Add(timeout))
	defer c.c.SetDeadline(time.Time{})
	if err := c.SendPreamble(timeout); err != nil {
		return err
	}
	p := make([]byte, PreambleSize)
	if _, err := io.ReadFull(c.c, p); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("no preamble from the peer within %v", timeout)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return fmt.Errorf("the peer closed the control connection during the handshake")
		}
		return fmt.Errorf("read preamble: %w", err)
	}
	return c.CheckPreamble(p, timeout, isServer)
}

// SendPreamble writes this side's preamble within timeout: the first half
// of Handshake, for a client that reads the peer's first bytes itself, to
// name what answered when it is not a netscript daemon.
func (c *Conn) SendPreamble(timeout time.Duration) error {
	c.c.SetWriteDeadline(time.Now().Add(timeout))
	defer c.c.SetWriteDeadline(time.Time{})
	if _, err := c.c.Write(AppendPreamble(nil, Version)); err != nil {
		return fmt.Errorf("send preamble: %w", err)
	}
	return nil
}

// CheckPreamble checks p, the peer's PreambleSize first bytes, as
// Handshake does once it has read them: ErrNotNetscript, or a
// *VersionError (a server first sends an Error explaining it, within
// timeout).
func (c *Conn) CheckPreamble(p []byte, timeout time.Duration, isServer bool) error {
	v, err := ParsePreamble(p)
	if err != nil {
		return err
	}
	if v != Version {
		ve := &VersionError{Peer: v, Ours: Version}
		if isServer {
			c.Send(TypeError, Error{Message: ve.Error()}, timeout)
		}
		return ve
	}
	return nil
}

// Send writes one message within timeout.
func (c *Conn) Send(t Type, v any, timeout time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b, err := AppendFrame(c.wbuf[:0], t, v)
	if err != nil {
		return err
	}
	c.wbuf = b
	if c.out != nil {
		if b, err = c.seal(b); err != nil {
			return fmt.Errorf("send %s: %w", t, err)
		}
	}
	c.c.SetWriteDeadline(time.Now().Add(timeout))
	if _, err := c.c.Write(b); err != nil {
		return fmt.Errorf("send %s: %w", t, err)
	}
	return nil
}

// SendPayload writes one message of type t whose payload is p as it is
// (sealed once the handshake is done): for tests and fuzzers that play a
// peer sending malformed payloads.
func (c *Conn) SendPayload(t Type, p []byte, timeout time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b := append(appendHeader(c.wbuf[:0], t, len(p)), p...)
	c.wbuf = b
	if c.out != nil {
		var err error
		if b, err = c.seal(b); err != nil {
			return fmt.Errorf("send %s: %w", t, err)
		}
	}
	c.c.SetWriteDeadline(time.Now().Add(timeout))
	if _, err := c.c.Write(b); err != nil {
		return fmt.Errorf("send %s: %w", t, err)
	}
	return nil
}

// sendRaw writes one frame of type t with a binary payload, in clear (the
// handshake's messages).
func (c *Conn) sendRaw(t Type, p []byte, timeout time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b := appendHeader(c.wbuf[:0], t, len(p))
	c.wbuf = append(b, p...)
	c.c.SetWriteDeadline(time.Now().Add(timeout))
	if _, err := c.c.Write(c.wbuf); err != nil {
		return fmt.Errorf("send %s: %w", t, err)
	}
	return nil
}

func (c *Conn) max() int {
	if c.MaxFrame > 0 {
		return c.MaxFrame
	}
	return DefaultMaxFrame
}

// Recv reads the next message within timeout (0: no deadline). A timeout
// in the middle of a message loses nothing: the next Recv returns it.
func (c *Conn) Recv(timeout time.Duration) (Type, []byte, error) {
	if timeout > 0 {
		c.c.SetReadDeadline(time.Now().Add(timeout))
	} else {
		c.c.SetReadDeadline(time.Time{})
	}
	t, p, err := c.readFrame()
	if err != nil {
		return t, nil, err
	}
	return t, p, nil
}

// UnexpectedError reports a message that does not fit the conversation.
type UnexpectedError struct {
	Want, Got Type
}

func (e *UnexpectedError) Error() string {
	return fmt.Sprintf("protocol error: expected %s, got %s", e.Want, e.Got)
}

// Expect reads the next message, which must be of type want, and decodes it
// into v. An Error message from the peer becomes a *RemoteError.
func (c *Conn) Expect(want Type, v any, timeout time.Duration) error {
	t, p, err := c.Recv(timeout)
	if err != nil {
		return expectErr(want, timeout, err)
	}
	if t == TypeError {
		var e Error
		if err := Decode(t, p, &e); err != nil {
			return err
		}
		return &RemoteError{Message: e.Message}
	}
	if t != want {
		return &UnexpectedError{Want: want, Got: t}
	}
	return Decode(t, p, v)
}

// expectErr words a failed read of the message want.
func expectErr(want Type, timeout time.Duration, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("no %s message within %v", want, timeout)
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the peer closed the control connection while this side waited for %s", want)
	}
	return err
}
