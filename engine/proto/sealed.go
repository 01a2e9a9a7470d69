package proto

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/flynn/noise"
)

// After the handshake every frame is sealed: a 32-bit big-endian length,
// then that many bytes of ChaCha20-Poly1305 ciphertext of the frame's type
// byte and payload, with the length as associated data. Each direction
// has its key from the handshake and counts its frames as the nonce, so a
// frame that was changed, dropped, replayed, reordered or made by anyone
// but the peer fails to open, and the connection ends. The type is inside:
// the path sees only the sizes of frames.

// sealOverhead is what sealing adds to a frame's type and payload: the
// AEAD's tag.
const sealOverhead = 16

// secure switches c to sealed frames, out for what it sends and in for what
// it receives.
func (c *Conn) secure(out, in *noise.CipherState) {
	c.wmu.Lock()
	c.out, c.in = out, in
	c.wmu.Unlock()
}

// seal turns a frame in clear (AppendFrame's) into a sealed one, in c.sbuf.
// Called with c.wmu held.
func (c *Conn) seal(frame []byte) ([]byte, error) {
	body := frame[4:] // type and payload
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(body)+sealOverhead))
	b := append(c.sbuf[:0], hdr[:]...)
	b, err := c.out.Encrypt(b, hdr[:], body)
	if err != nil {
		return nil, err
	}
	c.sbuf = b
	return b, nil
}

// readSealed reads one sealed frame and opens it. Like readFrame, when
// reading fails partway it also returns the bytes it had read.
func (c *Conn) readSealed(r io.Reader, max int) (Type, []byte, []byte, error) {
	var hdr [4]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, append([]byte(nil), hdr[:n]...), err
	}
	n := uint64(binary.BigEndian.Uint32(hdr[:]))
	if n < 1+sealOverhead {
		return 0, nil, nil, &FrameError{fmt.Sprintf("a sealed frame of %d bytes", n)}
	}
	if n-1-sealOverhead > uint64(max) {
		return 0, nil, nil, &FrameError{fmt.Sprintf("payload of %d bytes exceeds the limit of %d", n-1-sealOverhead, max)}
	}
	var b bytes.Buffer
	if n <= eagerPayload {
		b.Grow(int(n))
	}
	// Memory as the bytes arrive, not as the header claims.
	got, err := io.CopyN(&b, r, int64(n))
	if got < int64(n) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, append(hdr[:], b.Bytes()...), err
	}
	body, err := c.in.Decrypt(b.Bytes()[:0], hdr[:], b.Bytes())
	if err != nil {
		return 0, nil, nil, &FrameError{"a frame that does not open with the session's key (changed on the way, or not from the peer of this session)"}
	}
	t := Type(body[0])
	if !t.Known() {
		return t, nil, nil, &FrameError{fmt.Sprintf("unknown message %s", t)}
	}
	return t, body[1:], nil, nil
}
