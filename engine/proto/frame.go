package proto

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Version is the protocol version this build speaks. Version 3 added the
// Challenge that opens every conversation and the token exchange. Version
// 4 replaced that exchange, which a host in the middle could relay and
// whose later frames nothing protected, with a Noise handshake (auth.go)
// after which every frame is sealed (sealed.go), and data tags that both
// ends show before any data moves (auth.ConnHello, auth.Hello); the
// messages after the handshake are version 3's. A change to the wire
// schema (doc.go) is a new version: bump it and say here what changed and
// why.
const Version = 4

// Magic opens every control connection in both directions.
const Magic = "NETSCRPT"

// PreambleSize is the length of the preamble: Magic and a 16-bit version.
const PreambleSize = len(Magic) + 2

// DefaultMaxFrame bounds a frame's payload unless the operator sets another
// bound.
const DefaultMaxFrame = 64 << 10

// Type is a control message type.
type Type uint8

// The message types.
const (
	TypeError   Type = 1
	TypeSetup   Type = 2
	TypeReady   Type = 3
	TypeStart   Type = 4
	TypeStarted Type = 5
	TypeStop    Type = 6
	TypeResults Type = 7
	// TypeHeartbeat is sent by both sides during the measured interval of
	// a test whose Setup asked for heartbeats (Setup.HeartbeatNs).
	TypeHeartbeat Type = 13

	// The handshake (auth.go) takes numbers from 16 up, so the test
	// messages can grow below it; 16 to 18 were version 3's token
	// exchange and are not reused.
)

var typeNames = map[Type]string{
	TypeError: "Error", TypeSetup: "Setup", TypeReady: "Ready", TypeStart: "Start",
	TypeStarted: "Started", TypeStop: "Stop", TypeResults: "Results",
	TypeHello: "Hello", TypeWelcome: "Welcome",
	TypeRunClient:    "RunClient",
	TypeClientReady:  "ClientReady",
	TypeSync:         "Sync",
	TypeGo:           "Go",
	TypeClientResult: "ClientResult",
	TypeHeartbeat:    "Heartbeat",
}

// String names the type ("Setup"), or gives its number if unknown.
func (t Type) String() string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("type %d", uint8(t))
}

// Known reports whether t is a message type of this version.
func (t Type) Known() bool { _, ok := typeNames[t]; return ok }

// AppendPreamble appends the preamble for version v to b.
func AppendPreamble(b []byte, v uint16) []byte {
	b = append(b, Magic...)
	return binary.BigEndian.AppendUint16(b, v)
}

// ErrNotNetscript is returned when the peer's first bytes are not the
// preamble: it is some other service, or not a netscript peer at all.
var ErrNotNetscript = errors.New("the peer is not a netscript control endpoint (bad preamble)")

// ParsePreamble checks the preamble and returns the peer's version.
func ParsePreamble(p []byte) (uint16, error) {
	if len(p) != PreambleSize || !bytes.Equal(p[:len(Magic)], []byte(Magic)) {
		return 0, ErrNotNetscript
	}
	return binary.BigEndian.Uint16(p[len(Magic):]), nil
}

// VersionError reports a peer that speaks another protocol version.
type VersionError struct {
	Peer, Ours uint16
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("protocol version mismatch: peer speaks version %d, this netscript speaks version %d; run the same netscript release on both ends", e.Peer, e.Ours)
}

// FrameError reports a malformed frame.
type FrameError struct{ Reason string }

func (e *FrameError) Error() string { return "malformed control frame: " + e.Reason }

// ReadFrame reads one frame from r, refusing payloads larger than max before
// reading them.
func ReadFrame(r io.Reader, max int) (Type, []byte, error) {
	t, p, _, err := readFrame(r, max)
	return t, p, err
}

// readFrame is ReadFrame that, when reading from r fails partway (a
// deadline), also returns the frame's bytes it had read, so that a caller
// can go on from them (Conn.Recv, resume.go).
func readFrame(r io.Reader, max int) (Type, []byte, []byte, error) {
	var hdr [5]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, append([]byte(nil), hdr[:n]...), err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if n == 0 {
		return 0, nil, nil, &FrameError{"zero length"}
	}
	t := Type(hdr[4])
	size := uint64(n) - 1
	if size > uint64(max) {
		return t, nil, nil, &FrameError{fmt.Sprintf("%s payload of %d bytes exceeds the limit of %d", t, size, max)}
	}
	if !t.Known() {
		return t, nil, nil, &FrameError{fmt.Sprintf("unknown message %s", t)}
	}
	if size <= eagerPayload {
		p := make([]byte, size)
		if got, err := io.ReadFull(r, p); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return t, nil, append(hdr[:], p[:got]...), err
		}
		return t, p, nil, nil
	}
	// Memory as the bytes arrive, not as the header claims: a peer that
	// announces a large payload and sends a little of it costs a little.
	var b bytes.Buffer
	got, err := io.CopyN(&b, r, int64(size))
	if got < int64(size) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return t, nil, append(hdr[:], b.Bytes()...), err
	}
	return t, b.Bytes(), nil, nil
}

// eagerPayload is the largest payload ReadFrame allocates at once, before
// it has arrived.
const eagerPayload = 4096

// AppendFrame appends a frame of type t carrying the JSON encoding of v,
// in clear (a Conn seals it once the handshake is done).
func AppendFrame(b []byte, t Type, v any) ([]byte, error) {
	p, err := json.Marshal(v)
	if err != nil {
		return b, fmt.Errorf("encode %s: %w", t, err)
	}
	return append(appendHeader(b, t, len(p)), p...), nil
}

// appendHeader appends the header of a frame in clear: the length of the
// type and the payload, and the type.
func appendHeader(b []byte, t Type, payload int) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(payload+1))
	return append(b, byte(t))
}

// Decode parses a payload of type t into v, which must be the message struct
// of that type. It is strict: a field the message does not have (at any
// depth), a value of the wrong JSON type and anything after the value are
// errors, and so is what a message's Check method refuses (RunClient's
// test: TestSpec.Check).
func Decode(t Type, p []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(p))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return &FrameError{fmt.Sprintf("%s payload: %s", t, strings.TrimPrefix(err.Error(), "json: "))}
	}
	if len(bytes.Trim(p[d.InputOffset():], " \t\r\n")) > 0 {
		return &FrameError{fmt.Sprintf("%s payload: trailing data", t)}
	}
	if c, ok := v.(checker); ok {
		if err := c.Check(); err != nil {
			return &FrameError{fmt.Sprintf("%s payload: %v", t, err)}
		}
	}
	return nil
}

// checker is a message that can refuse values its JSON types allow.
type checker interface{ Check() error }

var _ checker = (*RunClient)(nil)
