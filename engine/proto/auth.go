package proto

import (
	"errors"
	"fmt"
	"time"

	"github.com/flynn/noise"

	"netscript/engine/auth"
)

// The handshake that follows the preamble (version 4) is the Noise
// protocol framework's NN pattern (Noise_NN_25519_ChaChaPoly_BLAKE2s), the
// one WireGuard's builds on, with the token's auth.Secret as pre-shared key
// (NNpsk0) when the client holds one:
//
//	client → server  Hello:   mode, e                 (mode: open or token)
//	server → client  Welcome: e, ee
//
// Both ends then hold two keys no one else has, bound to this connection
// (each end's fresh ephemeral key, and with a token the token's key), and
// every later frame is encrypted and authenticated with them. With a
// token, the Hello is sealed with a key mixed from the token, so only a
// server that holds it can answer; the Welcome, sealed with the token and
// both ephemeral keys, shows the client the server holds it too. A host in
// the middle, or a hostile host the client was aimed at, can pass the two
// messages on but reads and writes nothing of the session, and can forge
// no data tag (auth.DataKey). The preamble and the mode are the Noise
// prologue, so a changed version or mode fails the handshake.

// Handshake message types: the two Noise messages. Their payloads are
// binary, not JSON.
const (
	TypeHello   Type = 19 // client → server: the mode byte and Noise's first message
	TypeWelcome Type = 20 // server → client: Noise's second message
)

// The modes a Hello names.
const (
	modeOpen  byte = 0 // NN: the client holds no token
	modeToken byte = 1 // NNpsk0 with the token's Secret
)

// noiseMsgMax bounds a handshake message: an ephemeral key and a tag.
const noiseMsgMax = 1 + 32 + 16

// ErrAuthFailed is wrapped by every failure of the handshake's proof
// other than a missing token.
var ErrAuthFailed = errors.New("authentication failed")

// ErrTokenRequired: the server asks for a token and this client has none.
// The front end says how to give one.
var ErrTokenRequired = errors.New("this server requires a token")

// ErrServerOpen: this client holds a token, but the server asks for none
// and so cannot prove it is the server that was meant.
var ErrServerOpen = errors.New("this server asks for no token, so it cannot prove it holds yours")

// What the server tells a client it refuses, before any key is agreed
// (so these may be forged by anyone on the path, and say nothing secret).
const (
	refusal         = "authentication failed"
	tokenRequired   = "this server requires a token"
	serverWantsNone = "this server holds no token"
)

// Authenticate runs the handshake that follows the preamble, each step
// within timeout, and returns the session's data key (auth.DataKey); from
// then on every frame on c is encrypted and authenticated. A server
// (isServer) with a zero Secret is open: it takes clients without a token
// and refuses one with a token. A client with a token insists on a server
// that holds it; a client without one can use only an open server. A
// refused client learns nothing but that it was refused.
func (c *Conn) Authenticate(sec auth.Secret, isServer bool, timeout time.Duration) ([]byte, error) {
	if isServer {
		return c.authServer(sec, timeout)
	}
	return c.authClient(sec, timeout)
}

// handshakeState starts Noise's NN (NNpsk0 with a token) for one end.
func handshakeState(sec auth.Secret, mode byte, initiator bool) (*noise.HandshakeState, error) {
	cfg := noise.Config{
		CipherSuite: noise.NewCipherSuite(noise.DH25519, noise.CipherChaChaPoly, noise.HashBLAKE2s),
		Pattern:     noise.HandshakeNN,
		Initiator:   initiator,
		Prologue:    append(AppendPreamble([]byte("netscript handshake "), Version), mode),
	}
	if mode == modeToken {
		cfg.PresharedKey, cfg.PresharedKeyPlacement = sec.PSK(), 0
	}
	return noise.NewHandshakeState(cfg)
}

func (c *Conn) authServer(sec auth.Secret, timeout time.Duration) ([]byte, error) {
	t, p, err := c.recvHandshake(TypeHello, timeout)
	if err != nil {
		var re *RemoteError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("%w: the client gave up: %s", ErrAuthFailed, re.Message)
		}
		if _, ok := err.(*UnexpectedError); ok {
			c.Send(TypeError, Error{Message: fmt.Sprintf("protocol error: expected %s, got %s", TypeHello, t)}, timeout)
		}
		return nil, err
	}
	if len(p) == 0 || len(p) > noiseMsgMax {
		c.Send(TypeError, Error{Message: refusal}, timeout)
		return nil, &FrameError{fmt.Sprintf("%s payload of %d bytes", TypeHello, len(p))}
	}
	mode := p[0]
	switch {
	case mode != modeOpen && mode != modeToken:
		c.Send(TypeError, Error{Message: refusal}, timeout)
		return nil, &FrameError{fmt.Sprintf("%s: unknown mode %d", TypeHello, mode)}
	case sec.Set() && mode == modeOpen:
		c.Send(TypeError, Error{Message: tokenRequired}, timeout)
		return nil, fmt.Errorf("%w: the client has no token", ErrAuthFailed)
	case !sec.Set() && mode == modeToken:
		c.Send(TypeError, Error{Message: serverWantsNone}, timeout)
		return nil, fmt.Errorf("%w: the client has a token and this server none", ErrAuthFailed)
	}
	hs, err := handshakeState(sec, mode, false)
	if err != nil {
		return nil, err
	}
	if payload, _, _, err := hs.ReadMessage(nil, p[1:]); err != nil || len(payload) != 0 {
		c.Send(TypeError, Error{Message: refusal}, timeout)
		if mode == modeToken {
			return nil, fmt.Errorf("%w: the client's %s does not open with this server's token", ErrAuthFailed, TypeHello)
		}
		return nil, &FrameError{fmt.Sprintf("%s payload: not a Noise handshake message", TypeHello)}
	}
	msg, cs1, cs2, err := hs.WriteMessage(nil, nil)
	if err != nil {
		return nil, err
	}
	if err := c.sendRaw(TypeWelcome, msg, timeout); err != nil {
		return nil, err
	}
	c.secure(cs2, cs1)
	return auth.DataKey(cs1.UnsafeKey(), cs2.UnsafeKey()), nil
}

func (c *Conn) authClient(sec auth.Secret, timeout time.Duration) ([]byte, error) {
	mode := modeOpen
	if sec.Set() {
		mode = modeToken
	}
	hs, err := handshakeState(sec, mode, true)
	if err != nil {
		return nil, err
	}
	msg, _, _, err := hs.WriteMessage([]byte{mode}, nil)
	if err != nil {
		return nil, err
	}
	if err := c.sendRaw(TypeHello, msg, timeout); err != nil {
		return nil, err
	}
	_, p, err := c.recvHandshake(TypeWelcome, timeout)
	if err != nil {
		var re *RemoteError
		if errors.As(err, &re) {
			switch re.Message {
			case tokenRequired:
				return nil, ErrTokenRequired
			case serverWantsNone:
				return nil, ErrServerOpen
			case refusal:
				return nil, fmt.Errorf("%w: the server does not accept this token", ErrAuthFailed)
			}
		}
		return nil, err
	}
	payload, cs1, cs2, err := hs.ReadMessage(nil, p)
	if err != nil || len(payload) != 0 || cs1 == nil {
		if mode == modeToken {
			return nil, fmt.Errorf("%w: the server's answer does not prove it holds this token (is it the server you meant?)", ErrAuthFailed)
		}
		return nil, &FrameError{fmt.Sprintf("%s payload: not a Noise handshake message", TypeWelcome)}
	}
	c.secure(cs1, cs2)
	return auth.DataKey(cs1.UnsafeKey(), cs2.UnsafeKey()), nil
}

// recvHandshake reads the handshake message want (in clear). An Error
// from the peer becomes a *RemoteError, another message an
// *UnexpectedError; it returns the type it read.
func (c *Conn) recvHandshake(want Type, timeout time.Duration) (Type, []byte, error) {
	t, p, err := c.Recv(timeout)
	if err != nil {
		return t, nil, expectErr(want, timeout, err)
	}
	switch t {
	case want:
		return t, p, nil
	case TypeError:
		var e Error
		if err := Decode(t, p, &e); err != nil {
			return t, nil, err
		}
		return t, nil, &RemoteError{Message: e.Message}
	}
	return t, nil, &UnexpectedError{Want: want, Got: t}
}
