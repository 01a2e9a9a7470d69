package server

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"

	"netscript/engine/proto"
	"netscript/engine/workload"
)

// script is a control connection whose client's bytes are fixed in
// advance and whose writes go nowhere.
type script struct{ r io.Reader }

func (s *script) Read(p []byte) (int, error)         { return s.r.Read(p) }
func (s *script) Write(p []byte) (int, error)        { return len(p), nil }
func (s *script) Close() error                       { return nil }
func (s *script) LocalAddr() net.Addr                { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 12866} }
func (s *script) RemoteAddr() net.Addr               { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000} }
func (s *script) SetDeadline(t time.Time) error      { return nil }
func (s *script) SetReadDeadline(t time.Time) error  { return nil }
func (s *script) SetWriteDeadline(t time.Time) error { return nil }

// FuzzSession plays arbitrary client bytes against a whole server
// session (preamble, token exchange, first request, Setup and its checks,
// the data endpoint, Start, Stop): never a panic, and when the session
// ends it holds nothing (no pending slot, no admitted test).
func FuzzSession(f *testing.F) {
	s := New(Config{Version: "fuzz", Threads: &workload.Threads{}, Grace: time.Millisecond})
	defer s.Close()
	f.Fuzz(func(t *testing.T, in []byte) {
		s.pending.Add(1) // as the accept loop does
		c := &script{bytes.NewReader(in)}
		s.session(c)
		if l := s.Load(); l != (Load{}) {
			t.Fatalf("after %q the server holds %+v", in, l)
		}
	})
}

// conversation is what a well-behaved client of an open server sends.
func conversation(setup proto.Setup, more ...proto.Type) []byte {
	b := proto.AppendPreamble(nil, proto.Version)
	b, _ = proto.AppendFrame(b, proto.TypeSetup, setup)
	for _, t := range more {
		b, _ = proto.AppendFrame(b, t, struct{}{})
	}
	return b
}
