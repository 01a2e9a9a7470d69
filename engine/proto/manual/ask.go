// Package manual drives the client's side of a control session by hand,
// step by step, for the tests and benchmarks that play a hostile or broken
// client (one that asks for a test and never starts it, say). It is not a
// client: engine/client is.
package manual

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"netscript/engine/auth"
	"netscript/engine/proto"
)

// AskFor asks the open server at addr for a test by hand, as a client
// that will do no more than the caller says would: the preamble, the
// handshake and Setup. It returns the control connection and the server's
// Ready, or why the server refused (a *proto.RemoteError). Hostile-peer
// tests and benchmarks use it to hold tests they never start.
func AskFor(addr string, setup proto.Setup, timeout time.Duration) (net.Conn, proto.Ready, error) {
	pc, _, ready, err := Ask(addr, nil, setup, timeout)
	if err != nil {
		return nil, ready, err
	}
	return pc.Net(), ready, nil
}

// Ask is AskFor with a token (nil: none) that also returns the session:
// its control connection, whose frames are sealed, and its data key, with
// which the caller can greet the test's endpoints (GreetConn,
// GreetDatagrams) or not.
func Ask(addr string, tok auth.Token, setup proto.Setup, timeout time.Duration) (*proto.Conn, []byte, proto.Ready, error) {
	var ready proto.Ready
	pc, key, err := Login(addr, tok, timeout)
	if err == nil {
		err = pc.Send(proto.TypeSetup, setup, timeout)
		if err == nil {
			err = pc.Expect(proto.TypeReady, &ready, timeout)
		}
		if err != nil {
			pc.Close()
		}
	}
	if err != nil {
		return nil, nil, ready, err
	}
	return pc, key, ready, nil
}

// Login opens a control connection to addr and runs the preamble and the
// handshake with tok (nil: none); it returns the session and its data key.
func Login(addr string, tok auth.Token, timeout time.Duration) (*proto.Conn, []byte, error) {
	secret := auth.NewSecret(tok) // before connecting, as engine/client does
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, nil, err
	}
	pc := proto.NewConn(c)
	err = pc.Handshake(timeout, false)
	var key []byte
	if err == nil {
		key, err = pc.Authenticate(secret, false, timeout)
	}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return pc, key, nil
}

// GreetConn shows a TCP data connection's tag and reads the server's,
// within timeout, as a client's data connection does first.
func GreetConn(c net.Conn, key []byte, timeout time.Duration) error {
	c.SetDeadline(time.Now().Add(timeout))
	defer c.SetDeadline(time.Time{})
	if _, err := c.Write(auth.ConnHello(key)); err != nil {
		return err
	}
	got := make([]byte, auth.TagSize)
	if _, err := io.ReadFull(c, got); err != nil {
		return fmt.Errorf("the server's tag: %w", err)
	}
	if !bytes.Equal(got, auth.ConnAck(key)) {
		return errors.New("the server answered with another tag")
	}
	return nil
}

// GreetDatagrams runs flow's greeting on the connected UDP socket c
// (auth.Greeting: Hello, Ack, Confirm, Done), within timeout, as a
// client's UDP flow does first.
func GreetDatagrams(c net.Conn, key []byte, flow uint32, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	step := func(msg []byte, want byte) (auth.Cookie, error) {
		buf := make([]byte, auth.GreetingSize+1)
		for time.Now().Before(deadline) {
			c.Write(msg)
			c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			for {
				n, err := c.Read(buf)
				if err != nil {
					break
				}
				if kind, f, cookie, ok := auth.ParseGreeting(key, buf[:n]); ok && kind == want && f == flow {
					c.SetReadDeadline(time.Time{})
					return cookie, nil
				}
			}
		}
		return auth.Cookie{}, fmt.Errorf("no %c within %v", want, timeout)
	}
	cookie, err := step(auth.Greeting(key, auth.KindHello, flow, auth.Cookie{}), auth.KindAck)
	if err != nil {
		return err
	}
	_, err = step(auth.Greeting(key, auth.KindConfirm, flow, cookie), auth.KindDone)
	return err
}
