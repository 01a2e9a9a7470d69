// Package auth lets a netscript daemon and its clients prove to each other
// that they hold the same secret token, without the token crossing the
// wire, and derives the per-session key that ties a test's data connections
// to its authenticated control connection.
//
// The exchange is a challenge and response with HMAC-SHA256:
//
//	server → client  Challenge{ServerNonce}
//	client → server  Response{ClientNonce, MAC = HMAC(token, "client" | ServerNonce | ClientNonce)}
//	server → client  Proof{MAC = HMAC(token, "server" | ClientNonce | ServerNonce)}
//
// Both nonces are 32 random bytes, so a recorded exchange cannot be
// replayed, and the client learns that the server, too, knows the token.
// The session key is HMAC(token, "session" | ServerNonce | ClientNonce).
package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strings"
)

// NonceSize is the length of each side's nonce.
const NonceSize = 32

// MaxTokenSize bounds a token file.
const MaxTokenSize = 4096

// MinTokenSize is the shortest token accepted: shorter secrets are guessable.
const MinTokenSize = 16

// EnvToken is the environment variable that may hold the token. The
// engine never reads it: the command line does, and hands its value to
// LoadToken.
const EnvToken = "NETSCRIPT_TOKEN"

// Token is a shared secret.
type Token []byte

// LoadToken reads a token from the file at path, or, when path is "",
// takes fromEnv, the value of $NETSCRIPT_TOKEN as the caller read it.
// Surrounding white space is trimmed. It returns nil when neither is set.
func LoadToken(path, fromEnv string) (Token, error) {
	var raw string
	switch {
	case path != "":
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("token file: %w", err)
		}
		if st.Size() > MaxTokenSize {
			return nil, fmt.Errorf("token file %s: larger than %d bytes", path, MaxTokenSize)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("token file: %w", err)
		}
		raw = string(b)
	default:
		raw = fromEnv
		if raw == "" {
			return nil, nil
		}
		path = "$" + EnvToken
	}
	t := strings.TrimSpace(raw)
	if len(t) < MinTokenSize {
		return nil, fmt.Errorf("token from %s: %d bytes, want at least %d", path, len(t), MinTokenSize)
	}
	return Token(t), nil
}

// Nonce returns NonceSize random bytes.
func Nonce() ([]byte, error) {
	b := make([]byte, NonceSize)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("auth: random nonce: %w", err)
	}
	return b, nil
}

func mac(t Token, label string, a, b []byte) []byte {
	h := hmac.New(sha256.New, t)
	h.Write([]byte(label))
	h.Write(a)
	h.Write(b)
	return h.Sum(nil)
}

// ClientMAC is what the client sends to prove it holds the token.
func ClientMAC(t Token, serverNonce, clientNonce []byte) []byte {
	return mac(t, "netscript/1 client", serverNonce, clientNonce)
}

// ServerMAC is what the server sends back to prove it holds the token too.
func ServerMAC(t Token, serverNonce, clientNonce []byte) []byte {
	return mac(t, "netscript/1 server", clientNonce, serverNonce)
}

// SessionKey is the key both ends derive for the session once the exchange
// succeeded; data connections carry tags made with it.
func SessionKey(t Token, serverNonce, clientNonce []byte) []byte {
	return mac(t, "netscript/1 session", serverNonce, clientNonce)
}

// ErrBadMAC is returned when a peer's proof does not match: it does not
// hold the same token.
var ErrBadMAC = errors.New("authentication failed: the peer does not hold the same token")

// CheckNonce validates a nonce received from the network.
func CheckNonce(n []byte) error {
	if len(n) != NonceSize {
		return fmt.Errorf("auth: nonce of %d bytes, want %d", len(n), NonceSize)
	}
	return nil
}

// Verify compares a received MAC with the expected one in constant time.
func Verify(got, want []byte) error {
	if len(got) != len(want) || !hmac.Equal(got, want) {
		return ErrBadMAC
	}
	return nil
}

// DataTag is the tag a client sends first on a data connection of test
// `test` in the session, so the server can tell its data connections from a
// stranger's.
func DataTag(sessionKey []byte, test uint64) []byte {
	var b [8]byte
	for i := range b {
		b[i] = byte(test >> (8 * i))
	}
	return mac(Token(sessionKey), "netscript/1 data", b[:], nil)
}

// TagSize is the length of a DataTag.
const TagSize = sha256.Size
