package proto

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

// TestReadFrameLarge: a payload past the eager size arrives whole, and one
// cut short is an unexpected EOF.
func TestReadFrameLarge(t *testing.T) {
	payload := bytes.Repeat([]byte("x"), 50000)
	in := binary.BigEndian.AppendUint32(nil, uint32(len(payload)+1))
	in = append(append(in, byte(TypeError)), payload...)
	typ, p, err := ReadFrame(bytes.NewReader(in), DefaultMaxFrame)
	if err != nil || typ != TypeError || !bytes.Equal(p, payload) {
		t.Fatalf("%v %v %d bytes", typ, err, len(p))
	}
	if _, _, err := ReadFrame(bytes.NewReader(in[:30000]), DefaultMaxFrame); err != io.ErrUnexpectedEOF {
		t.Fatalf("cut short: %v", err)
	}
}

// TestAnnouncedIsNotAllocated: a header that announces the largest payload
// followed by three bytes costs about what arrived, not what was announced.
func TestAnnouncedIsNotAllocated(t *testing.T) {
	in := binary.BigEndian.AppendUint32(nil, DefaultMaxFrame+1)
	in = append(in, byte(TypeSetup), '{', '"', 'x')
	allocs := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			ReadFrame(bytes.NewReader(in), DefaultMaxFrame)
		}
	})
	if per := allocs.AllocedBytesPerOp(); per >= DefaultMaxFrame/4 {
		t.Fatalf("%d bytes allocated for a 3-byte payload announced as %d", per, DefaultMaxFrame)
	}
}
