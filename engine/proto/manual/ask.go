// Package manual drives the client's side of a control session by hand,
// step by step, for the tests and benchmarks that play a hostile or broken
// client (one that asks for a test and never starts it, say). It is not a
// client: engine/client is.
package manual

import (
	"net"
	"time"

	"netscript/engine/proto"
)

// AskFor asks the open server at addr for a test by hand, as a client
// that will do no more than the caller says would: the preamble, the
// (empty) token exchange and Setup. It returns the control connection and
// the server's Ready, or why the server refused (a *proto.RemoteError).
// Hostile-peer tests and benchmarks use it to hold tests they never start.
func AskFor(addr string, setup proto.Setup, timeout time.Duration) (net.Conn, proto.Ready, error) {
	var ready proto.Ready
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, ready, err
	}
	pc := proto.NewConn(c)
	err = pc.Handshake(timeout, false)
	if err == nil {
		_, err = pc.Authenticate(nil, false, timeout)
	}
	if err == nil {
		err = pc.Send(proto.TypeSetup, setup, timeout)
	}
	if err == nil {
		err = pc.Expect(proto.TypeReady, &ready, timeout)
	}
	if err != nil {
		c.Close()
		return nil, ready, err
	}
	return c, ready, nil
}
