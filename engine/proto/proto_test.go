package proto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func frame(t Type, payload string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(payload)+1))
	b = append(b, byte(t))
	return append(b, payload...)
}

// TestReadFrame covers good frames and each way a frame can be broken.
func TestReadFrame(t *testing.T) {
	huge := binary.BigEndian.AppendUint32(nil, 0xFFFFFFFF)
	huge = append(huge, byte(TypeSetup))
	cases := []struct {
		name string
		in   []byte
		want string // error substring; "" for success
	}{
		{"setup", frame(TypeSetup, `{"test":"TCP_RR"}`), ""},
		{"empty stop", frame(TypeStop, `{}`), ""},
		{"zero length", []byte{0, 0, 0, 0, 2}, "zero length"},
		{"4 GiB length prefix", huge, "exceeds the limit"},
		{"unknown type", frame(Type(200), `{}`), "unknown message type 200"},
		{"truncated header", []byte{0, 0}, "unexpected EOF"},
		{"truncated payload", frame(TypeSetup, `{"test":"TCP_RR"}`)[:10], "unexpected EOF"},
		{"nothing", nil, "EOF"},
	}
	for _, c := range cases {
		_, _, err := ReadFrame(bytes.NewReader(c.in), DefaultMaxFrame)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// TestDecode: a payload must be one JSON value of the right shape.
func TestDecode(t *testing.T) {
	var s Setup
	if err := Decode(TypeSetup, []byte(`{"test":"TCP_RR","request":5}`), &s); err != nil || s.Request != 5 {
		t.Fatalf("good payload: %v %+v", err, s)
	}
	for _, bad := range []string{`{"test":`, `[1,2]`, `{"request":"five"}`, `{} {}`, ``, `{"request":1e400}`} {
		if err := Decode(TypeSetup, []byte(bad), &s); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

// pair returns the two ends of a loopback TCP connection (net.Pipe does not
// buffer, and both ends of a handshake write before they read).
func pair(t testing.TB) (net.Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// TestHandshake: versions and magic are checked both ways.
func TestHandshake(t *testing.T) {
	a, b := pair(t)
	errs := make(chan error, 1)
	go func() { errs <- NewConn(b).Handshake(time.Second, true) }()
	if err := NewConn(a).Handshake(time.Second, false); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; err != nil {
		t.Fatal(err)
	}

	a, b = pair(t)
	go func(b net.Conn) {
		b.Write(AppendPreamble(nil, 7))
		io.ReadFull(b, make([]byte, PreambleSize))
		b.Close()
	}(b)
	var ve *VersionError
	if err := NewConn(a).Handshake(time.Second, false); !errors.As(err, &ve) || ve.Peer != 7 {
		t.Fatalf("got %v, want a version error naming 7", err)
	}

	a, b = pair(t)
	go func(b net.Conn) {
		b.Write([]byte("HTTP/1.1 400"))
		io.ReadFull(b, make([]byte, PreambleSize))
		b.Close()
	}(b)
	if err := NewConn(a).Handshake(time.Second, false); !errors.Is(err, ErrNotNetscript) {
		t.Fatalf("got %v, want ErrNotNetscript", err)
	}
}

// TestRoundTrip: every message survives encoding.
func TestRoundTrip(t *testing.T) {
	in := Results{Transactions: 9, BytesSent: 10, Errors: map[string]uint64{"ECONNRESET": 1}, Peers: []Peer{{"127.0.0.2", 3}}}
	b, err := AppendFrame(nil, TypeResults, in)
	if err != nil {
		t.Fatal(err)
	}
	typ, p, err := ReadFrame(bytes.NewReader(b), DefaultMaxFrame)
	if err != nil || typ != TypeResults {
		t.Fatal(typ, err)
	}
	var out Results
	if err := Decode(typ, p, &out); err != nil {
		t.Fatal(err)
	}
	if out.Transactions != 9 || out.Errors["ECONNRESET"] != 1 || out.Peers[0].Addr != "127.0.0.2" {
		t.Fatalf("%+v", out)
	}
}

// FuzzReadFrame feeds arbitrary bytes to the frame reader and to the
// strict decoder of whatever type the frame claims: never a panic, never
// an allocation beyond the frame limit.
func FuzzReadFrame(f *testing.F) {
	f.Add(frame(TypeSetup, `{"test":"TCP_RR","request":1,"response":1}`))
	f.Add(frame(TypeResults, `{"transactions":1,"peers":[{"addr":"::1","count":2}]}`))
	f.Add(frame(TypeError, `{"message":"no"}`))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 2})
	f.Add([]byte{0, 0, 0, 1, 200})
	f.Fuzz(func(t *testing.T, in []byte) {
		typ, p, err := ReadFrame(bytes.NewReader(in), 4096)
		if err != nil {
			return
		}
		if len(p) > 4096 {
			t.Fatalf("payload of %d bytes passed a 4096-byte limit", len(p))
		}
		Decode(typ, p, messageFor(typ))
	})
}

// FuzzPreamble: any 10 bytes either parse as a preamble or are refused.
func FuzzPreamble(f *testing.F) {
	f.Add(AppendPreamble(nil, Version))
	f.Add([]byte("NETSCRPT\xff\xff"))
	f.Add([]byte("GET / HTTP"))
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := ParsePreamble(in)
		if err == nil && (len(in) != PreambleSize || string(in[:8]) != Magic || v != binary.BigEndian.Uint16(in[8:])) {
			t.Fatalf("accepted %q as version %d", in, v)
		}
	})
}
