package server

import (
	"testing"
	"time"

	"netscript/engine/proto"
	"netscript/engine/proto/prototest"
	"netscript/engine/workload"
)

// FuzzSession plays arbitrary client bytes against a whole server
// session (preamble, token exchange, first request, Setup and its checks,
// the data endpoint, Start, Stop): never a panic, and when the session
// ends it holds nothing (no pending slot, no admitted test).
func FuzzSession(f *testing.F) {
	// A short handshake bound: a conversation's Start waits that long for
	// data connections that never come (the fuzzer counts 10 s as a hang).
	s := New(Config{Version: "fuzz", Threads: &workload.Threads{}, Grace: time.Millisecond, HandshakeTimeout: 300 * time.Millisecond})
	defer s.Close()
	f.Fuzz(func(t *testing.T, in []byte) {
		// A first request of RunClient makes the daemon dial whatever host
		// it names: never from a fuzzer (FuzzRunClient covers its checks).
		if at := proto.PreambleSize + 4; len(in) > at && proto.Type(in[at]) == proto.TypeRunClient {
			return
		}
		c := prototest.NewScript(in)
		addr := remoteAddr(c)
		if busy := s.takePending(addr); busy != "" { // as the accept loop does
			t.Fatal(busy)
		}
		s.session(c, addr)
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
