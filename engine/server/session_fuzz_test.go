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
	s := New(Config{Version: "fuzz", Threads: &workload.Threads{}, Grace: time.Millisecond})
	defer s.Close()
	f.Fuzz(func(t *testing.T, in []byte) {
		// A first request of RunClient makes the daemon dial whatever host
		// it names: never from a fuzzer (FuzzRunClient covers its checks).
		if at := proto.PreambleSize + 4; len(in) > at && proto.Type(in[at]) == proto.TypeRunClient {
			return
		}
		s.pending.Add(1) // as the accept loop does
		c := prototest.NewScript(in)
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

// FuzzRunClient feeds hostile RunClient payloads to the decoding and the
// checks a daemon applies before it runs a test's client side for a
// script: never a panic, and whatever passes names a server, does not hand
// the client side on, and fits the daemon's bounds on duration, flows,
// message sizes and socket buffers.
func FuzzRunClient(f *testing.F) {
	s := New(Config{Version: "fuzz", Threads: &workload.Threads{}})
	defer s.Close()
	f.Fuzz(func(t *testing.T, payload []byte) {
		var m proto.RunClient
		if proto.Decode(proto.TypeRunClient, payload, &m) != nil {
			return
		}
		sp, err := m.Test.ToSpec()
		if err != nil {
			return
		}
		if s.checkRemote(&sp) != nil {
			return
		}
		l := &s.lim
		if sp.Host == "" || sp.Client != "" || sp.Duration < 0 || sp.Duration > l.MaxDuration ||
			sp.FlowCount() > l.MaxFlows || sp.SendBuffer > l.MaxBuffer || sp.RecvBuffer > l.MaxBuffer ||
			sp.SendSize > l.MaxMessage || (sp.Workload.RR() && (sp.Request > l.MaxMessage || sp.Response > l.MaxMessage)) {
			t.Fatalf("accepted %+v", sp)
		}
	})
}
