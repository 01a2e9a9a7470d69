// Package auth holds what a netscript daemon and its clients share to trust
// each other: the token (a secret string), loaded from a file or handed in
// by the caller from the environment; the pre-shared key the control
// handshake derives from it (Secret); and the tags a session's data
// connections and datagrams carry to prove they belong to it (tags.go).
//
// The control handshake itself is the Noise protocol's NN pattern, with
// the Secret as pre-shared key when a token is set (NNpsk0), in package
// proto: it gives both ends a session key bound to that one connection,
// from which every data tag is derived.
package auth

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/crypto/argon2"
)

// MaxTokenSize bounds a token file: at most this many bytes are read.
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
// The file must be a regular file (not a FIFO, a device or a directory,
// which could hang or never end) and is read up to MaxTokenSize bytes.
func LoadToken(path, fromEnv string) (Token, error) {
	var raw string
	switch {
	case path != "":
		b, err := readTokenFile(path)
		if err != nil {
			return nil, err
		}
		raw = string(b)
	default:
		if fromEnv == "" {
			return nil, nil
		}
		raw, path = fromEnv, "$"+EnvToken
	}
	t := strings.TrimSpace(raw)
	if len(t) < MinTokenSize {
		return nil, fmt.Errorf("token from %s: %d bytes, want at least %d", path, len(t), MinTokenSize)
	}
	return Token(t), nil
}

// readTokenFile reads a regular file of at most MaxTokenSize bytes. It
// opens without blocking (a FIFO with no writer would hang an ordinary
// open) and checks what it opened, not what the name pointed to before.
func readTokenFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("token file %s: not a regular file (%s)", path, kind(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	if !st.Mode().IsRegular() { // the name was changed since
		return nil, fmt.Errorf("token file %s: not a regular file (%s)", path, kind(st.Mode()))
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxTokenSize+1))
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	if len(b) > MaxTokenSize {
		return nil, fmt.Errorf("token file %s: larger than %d bytes", path, MaxTokenSize)
	}
	return b, nil
}

// kind names a file type that is not a regular file.
func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// Secret is a token made ready for the control handshake: the pre-shared
// key derived from it. Its zero value stands for no token (an open server,
// a client without one).
type Secret struct {
	psk []byte
}

// The Argon2id cost of deriving a Secret. A host a client connects to
// learns a value it can test guesses of the token against offline (any
// pre-shared-key handshake gives the party the client talks to that), so
// each guess is made to cost this much memory and time: about 20 ms on
// the two-CPU machine netscript was built on. A token of 16 random bytes
// or more is out of reach either way.
const (
	kdfTime   = 1
	kdfMemory = 8 << 10 // KiB
	kdfSalt   = "netscript/4 pre-shared key"
)

// NewSecret derives the Secret of tok (the zero Secret for no token). It
// costs an Argon2id of kdfMemory: a daemon derives it once, a client once
// per control connection.
func NewSecret(tok Token) Secret {
	if len(tok) == 0 {
		return Secret{}
	}
	return Secret{psk: argon2.IDKey(tok, []byte(kdfSalt), kdfTime, kdfMemory, 1, 32)}
}

// Set reports whether the Secret stands for a token.
func (s Secret) Set() bool { return len(s.psk) > 0 }

// PSK is the 32-byte pre-shared key (nil without a token).
func (s Secret) PSK() []byte { return s.psk }

// ErrBadTag is a data connection's or datagram's tag that does not match
// the session's.
var ErrBadTag = errors.New("the data tag does not match the session's")
