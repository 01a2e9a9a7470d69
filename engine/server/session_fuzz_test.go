package server

import (
	"encoding/binary"
	"net"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/proto"
	"netscript/engine/workload"
)

// FuzzSession plays arbitrary client frames against a whole server
// session (the first request, Setup and its checks, the data endpoint,
// Start, Stop), each sealed as a client that completed the handshake
// sends it: never a panic, and when the session ends it holds nothing (no
// pending slot, no admitted test). The input is frames in clear (a 32-bit
// length, the type, the payload); what does not parse as one is sent as it
// is, unsealed, as a peer that breaks the framing would.
func FuzzSession(f *testing.F) {
	// A short handshake bound: a conversation's Start waits that long for
	// data connections that never come (the fuzzer counts 10 s as a hang).
	s := New(Config{Version: "fuzz", Threads: &workload.Threads{}, Grace: time.Millisecond, HandshakeTimeout: 300 * time.Millisecond})
	defer s.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	defer l.Close()
	f.Fuzz(func(t *testing.T, in []byte) {
		// A first request of RunClient makes the daemon dial whatever host
		// it names: never from a fuzzer (FuzzRunClient covers its checks).
		if len(in) > 4 && proto.Type(in[4]) == proto.TypeRunClient {
			return
		}
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		sc, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		addr := remoteAddr(sc)
		sl, busy := s.pend.take(addr, func() { sc.Close() }) // as the accept loop does
		if busy != nil {
			t.Fatal(busy)
		}
		done := make(chan struct{})
		go func() { defer close(done); s.session(sc, addr, sl) }()
		pc := proto.NewConn(c)
		if err := pc.Handshake(time.Second, false); err != nil {
			t.Fatal(err)
		}
		if _, err := pc.Authenticate(auth.Secret{}, false, time.Second); err != nil {
			t.Fatal(err)
		}
		for len(in) >= 5 {
			n := int(binary.BigEndian.Uint32(in[:4]))
			if n < 1 || n > len(in)-4 {
				break
			}
			if pc.SendPayload(proto.Type(in[4]), in[5:4+n], time.Second) != nil {
				break
			}
			in = in[4+n:]
		}
		c.Write(in)
		c.(*net.TCPConn).CloseWrite()
		<-done
		if l := s.Load(); l != (Load{}) {
			t.Fatalf("after %q the server holds %+v", in, l)
		}
	})
}

// conversation is the frames, in clear, a well-behaved client of an open
// server sends after the handshake.
func conversation(setup proto.Setup, more ...proto.Type) []byte {
	b, _ := proto.AppendFrame(nil, proto.TypeSetup, setup)
	for _, t := range more {
		b, _ = proto.AppendFrame(b, t, struct{}{})
	}
	return b
}
