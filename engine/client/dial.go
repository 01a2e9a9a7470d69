package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"netscript/engine/auth"
	"netscript/engine/proto"
	"netscript/engine/sock"
)

// Dial opens the control connection to addr and runs its handshake, with
// tok if this client has one (nil: none): such a client talks only to a
// server that proves it holds the same token, and one without only to an
// open server. It returns the session's data key (auth.DataKey), with which
// the test's flows greet their endpoints.
func Dial(ctx context.Context, addr netip.AddrPort, timeout time.Duration, tok auth.Token) (*proto.Conn, []byte, error) {
	return dial(ctx, addr, timeout, tok, true)
}

// dial is Dial; probe lets it ask a far end that does not greet what it is
// (probe.go), on connections of its own.
func dial(ctx context.Context, addr netip.AddrPort, timeout time.Duration, tok auth.Token, probe bool) (*proto.Conn, []byte, error) {
	// The key is derived (an Argon2id) before connecting, so the server's
	// handshake bound never waits on this machine's load.
	secret := auth.NewSecret(tok)
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", addr.String())
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, nil, fmt.Errorf("dial %s: no answer within %v (host down or filtered?)", addr, timeout)
		}
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			cause := oe.Err
			var se interface{ Unwrap() error }
			if errors.As(cause, &se) {
				if inner := se.Unwrap(); inner != nil {
					cause = inner
				}
			}
			return nil, nil, &sock.OpError{Op: "dial", Addr: addr.String(), Err: cause}
		}
		return nil, nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	pc := proto.NewConn(c)
	pc.MaxFrame = maxResultsFrame
	if err := pc.SendPreamble(ControlTimeout); err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("control %s: %w", addr, err)
	}
	// What answers is named within the connect timeout when it is not a
	// netscript daemon (peer.go).
	p, err := awaitGreeting(ctx, c, addr.String(), timeout, probe)
	if err != nil {
		c.Close()
		var pe *PeerError
		if errors.As(err, &pe) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("control %s: %w", addr, err)
	}
	if err := pc.CheckPreamble(p, ControlTimeout, false); err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("control %s: %w", addr, err)
	}
	key, err := pc.Authenticate(secret, false, ControlTimeout)
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("control %s: %w", addr, err)
	}
	return pc, key, nil
}
