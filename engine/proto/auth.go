package proto

import (
	"errors"
	"fmt"
	"time"

	"netscript/engine/auth"
)

// Challenge is the server's first message after the preamble. A server
// that holds a token sends a fresh nonce the client must answer with Auth;
// an open server sends none, and the client goes on with its first request.
type Challenge struct {
	Nonce []byte `json:"nonce,omitempty"` // auth.NonceSize bytes, or none
}

// Auth answers a Challenge: the client's own nonce and its proof that it
// holds the token (auth.ClientMAC).
type Auth struct {
	Nonce []byte `json:"nonce"`
	MAC   []byte `json:"mac"`
}

// Proof is the server's proof that it holds the token too
// (auth.ServerMAC), so the client knows which server it talks to.
type Proof struct {
	MAC []byte `json:"mac"`
}

// ErrAuthFailed is wrapped by every failure of the token exchange other
// than a missing token.
var ErrAuthFailed = errors.New("authentication failed")

// ErrTokenRequired: the server asks for a token and this client has none.
// The front end says how to give one.
var ErrTokenRequired = errors.New("this server requires a token")

// ErrServerOpen: this client holds a token, but the server asks for none
// and so cannot prove it is the server that was meant.
var ErrServerOpen = errors.New("this server asks for no token, so it cannot prove it holds yours")

// refusal is all a client that failed the exchange is told.
const refusal = "authentication failed"

// noToken is what a client without a token tells the server.
const noToken = "this client has no token"

// Authenticate runs the token exchange that follows the preamble, each
// step within timeout, and returns the session key (nil when the server is
// open). A server (isServer) with a nil token is open: it says so and
// accepts anyone. A client with a token insists on the server's proof; a
// client without one can use only an open server. The token never crosses
// the wire, and a refused client learns nothing but that it was refused.
func (c *Conn) Authenticate(tok auth.Token, isServer bool, timeout time.Duration) ([]byte, error) {
	if isServer {
		return c.authServer(tok, timeout)
	}
	return c.authClient(tok, timeout)
}

func (c *Conn) authServer(tok auth.Token, timeout time.Duration) ([]byte, error) {
	if len(tok) == 0 {
		return nil, c.Send(TypeChallenge, Challenge{}, timeout)
	}
	sn, err := auth.Nonce()
	if err != nil {
		return nil, err
	}
	if err := c.Send(TypeChallenge, Challenge{Nonce: sn}, timeout); err != nil {
		return nil, err
	}
	var a Auth
	if err := c.Expect(TypeAuth, &a, timeout); err != nil {
		var re *RemoteError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("%w: the client gave up: %s", ErrAuthFailed, re.Message)
		}
		c.Send(TypeError, Error{Message: refusal}, timeout)
		return nil, fmt.Errorf("%w: %v", ErrAuthFailed, err)
	}
	if err := auth.CheckNonce(a.Nonce); err != nil {
		c.Send(TypeError, Error{Message: refusal}, timeout)
		return nil, fmt.Errorf("%w: %v", ErrAuthFailed, err)
	}
	if err := auth.Verify(a.MAC, auth.ClientMAC(tok, sn, a.Nonce)); err != nil {
		c.Send(TypeError, Error{Message: refusal}, timeout)
		return nil, fmt.Errorf("%w: the client's proof does not match this server's token", ErrAuthFailed)
	}
	if err := c.Send(TypeProof, Proof{MAC: auth.ServerMAC(tok, sn, a.Nonce)}, timeout); err != nil {
		return nil, err
	}
	return auth.SessionKey(tok, sn, a.Nonce), nil
}

func (c *Conn) authClient(tok auth.Token, timeout time.Duration) ([]byte, error) {
	var ch Challenge
	if err := c.Expect(TypeChallenge, &ch, timeout); err != nil {
		return nil, err
	}
	if len(ch.Nonce) == 0 {
		if len(tok) > 0 {
			return nil, ErrServerOpen
		}
		return nil, nil
	}
	if err := auth.CheckNonce(ch.Nonce); err != nil {
		return nil, &FrameError{fmt.Sprintf("Challenge payload: %v", err)}
	}
	if len(tok) == 0 {
		c.Send(TypeError, Error{Message: noToken}, timeout)
		return nil, ErrTokenRequired
	}
	cn, err := auth.Nonce()
	if err != nil {
		return nil, err
	}
	if err := c.Send(TypeAuth, Auth{Nonce: cn, MAC: auth.ClientMAC(tok, ch.Nonce, cn)}, timeout); err != nil {
		return nil, err
	}
	var p Proof
	if err := c.Expect(TypeProof, &p, timeout); err != nil {
		var re *RemoteError
		if errors.As(err, &re) && re.Message == refusal {
			return nil, fmt.Errorf("%w: the server does not accept this token", ErrAuthFailed)
		}
		return nil, err
	}
	if auth.Verify(p.MAC, auth.ServerMAC(tok, ch.Nonce, cn)) != nil {
		return nil, fmt.Errorf("%w: the server's proof does not match this token (is it the server you meant?)", ErrAuthFailed)
	}
	return auth.SessionKey(tok, ch.Nonce, cn), nil
}
