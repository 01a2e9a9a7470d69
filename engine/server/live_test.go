package server_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/server"
)

// startLive starts a server whose liveness bound is bound.
func startLive(t *testing.T, bound time.Duration) (*server.Server, netip.AddrPort) {
	t.Helper()
	l := limits.Default()
	l.Liveness = bound
	srv := server.New(server.Config{Version: "test", Limits: l, Explain: nameBound})
	a, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, netip.MustParseAddrPort(a.String())
}

// startedTest sets a 30 s UDP_RR up on a control connection of its own
// (its one flow greets the endpoint and sends nothing more: the control
// conversation is what is tested), asks for heartbeats every period (0:
// none) and starts it.
func startedTest(t *testing.T, ap netip.AddrPort, period time.Duration) *proto.Conn {
	t.Helper()
	pc, key, err := client.Dial(context.Background(), ap, 5*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	setup := proto.Setup{Test: "UDP_RR", Request: 1, Response: 1, DurationNs: int64(30 * time.Second), HeartbeatNs: int64(period)}
	if err := pc.Send(proto.TypeSetup, setup, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	var ready proto.Ready
	if err := pc.Expect(proto.TypeReady, &ready, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	greetedUDP(t, ap.Addr().String(), netip.AddrPortFrom(ap.Addr(), uint16(ready.DataPort)).String(), key, 0)
	if err := pc.Send(proto.TypeStart, proto.Start{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := pc.Expect(proto.TypeStarted, &proto.Started{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	return pc
}

// TestSilentClientIsCutOff: a client that asked for heartbeats and then
// sends nothing has its test ended and freed once the server's bound has
// passed (told so in an Error), long before the test's 30 s; meanwhile the
// server sent it heartbeats.
func TestSilentClientIsCutOff(t *testing.T) {
	srv, ap := startLive(t, 500*time.Millisecond)
	pc := startedTest(t, ap, 100*time.Millisecond)
	begin := time.Now()
	beats := 0
	var msg string
	for {
		typ, p, err := pc.Recv(10 * time.Second)
		if err != nil {
			t.Fatalf("after %d heartbeats: %v", beats, err)
		}
		if typ == proto.TypeHeartbeat {
			if time.Since(begin) > time.Minute { // a hang guard: the server's heartbeats alone never end the loop
				t.Fatalf("not cut off after %v and %d heartbeats; the bound is 500ms", time.Since(begin), beats)
			}
			beats++
			continue
		}
		var e proto.Error
		if typ != proto.TypeError || proto.Decode(typ, p, &e) != nil {
			t.Fatalf("got %s %q", typ, p)
		}
		msg = e.Message
		break
	}
	took := time.Since(begin)
	if !strings.Contains(msg, "the client sent nothing on the control connection for") || !strings.HasSuffix(msg, "the test is ended [liveness]") {
		t.Errorf("the server said %q", msg)
	}
	if beats < 2 || took < 400*time.Millisecond || took > 30*time.Second {
		t.Errorf("cut off after %v and %d heartbeats; the bound is 500ms, the period 100ms", took, beats)
	}
	waitIdle(t, srv)
}

// TestHeartbeatsKeepATestAlive: a client that keeps to its heartbeats is
// not cut off past the bound, and its Stop is answered with Results (the
// server's heartbeats stop before them). A client that asked for none is
// sent none and waited for as before heartbeats.
func TestHeartbeatsKeepATestAlive(t *testing.T) {
	for _, period := range []time.Duration{100 * time.Millisecond, 0} {
		// The bound is 40 of the client's sends (one each 50 ms at most):
		// a loaded machine may stall a goroutine a while, not that long.
		srv, ap := startLive(t, 2*time.Second)
		pc := startedTest(t, ap, period)
		beats := 0
		end := time.Now().Add(3 * time.Second) // past the bound
		for time.Now().Before(end) {
			if period > 0 {
				if err := pc.Send(proto.TypeHeartbeat, proto.Heartbeat{}, time.Second); err != nil {
					t.Fatal(err)
				}
			}
			typ, _, err := pc.Recv(50 * time.Millisecond)
			switch {
			case err == nil && typ == proto.TypeHeartbeat:
				beats++
			case err == nil:
				t.Fatalf("period %v: got %s during the test", period, typ)
			}
		}
		if (beats > 0) != (period > 0) {
			t.Errorf("period %v: %d heartbeats from the server", period, beats)
		}
		if err := pc.Send(proto.TypeStop, proto.Stop{}, time.Second); err != nil {
			t.Fatal(err)
		}
		for {
			typ, p, err := pc.Recv(10 * time.Second)
			if err != nil {
				t.Fatalf("period %v: waiting for Results: %v", period, err)
			}
			if typ == proto.TypeHeartbeat {
				continue // sent before the server read Stop
			}
			if err := proto.Decode(typ, p, &proto.Results{}); typ != proto.TypeResults || err != nil {
				t.Fatalf("period %v: got %s (%v)", period, typ, err)
			}
			break
		}
		waitIdle(t, srv)
	}
}

// waitIdle waits for the server to have freed every test.
func waitIdle(t *testing.T, srv *server.Server) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for srv.Load().Running > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the server still holds %+v", srv.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
