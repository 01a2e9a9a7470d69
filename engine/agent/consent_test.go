package agent_test

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"netscript/engine/agent"
	"netscript/engine/auth"
	"netscript/engine/client"
	"netscript/engine/proto"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// fakeDaemon is a hostile server on loopback: it completes the control
// handshake as an open netscript daemon does, then answers Setup with
// Ready naming dataPort (another port of its host, not an endpoint of its
// own), and carries the conversation on as if the test ran.
func fakeDaemon(t *testing.T, dataPort int) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int64
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				pc := proto.NewConn(c)
				if pc.Handshake(5*time.Second, true) != nil {
					return
				}
				if _, err := pc.Authenticate(auth.Secret{}, true, 5*time.Second); err != nil {
					return
				}
				if pc.Expect(proto.TypeSetup, &proto.Setup{}, 5*time.Second) != nil {
					return
				}
				pc.Send(proto.TypeReady, proto.Ready{DataPort: dataPort}, time.Second)
				if pc.Expect(proto.TypeStart, &proto.Start{}, 30*time.Second) != nil {
					return
				}
				pc.Send(proto.TypeStarted, proto.Started{}, time.Second)
				if pc.Expect(proto.TypeStop, &proto.Stop{}, 30*time.Second) != nil {
					return
				}
				pc.Send(proto.TypeResults, proto.Results{}, time.Second)
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// TestConsentBeforeBulk is the mesh aimed at any port (issue 29, hole 7):
// a hostile server completes the control handshake with an --allow-client
// daemon and names another port of its host as the test's data port: a
// UDP service, or a TCP one, that is not netscript. The daemon sends bulk
// only to an endpoint that answered the test's tag on that very port, so
// the service gets the greeting and nothing more (at most five 40-byte
// datagrams; a connection and a 32-byte tag), and the script is told the
// port is not the test's endpoint. On 84d21eb it sent the stream there
// (652 MB into a UDP service in the run).
func TestConsentBeforeBulk(t *testing.T) {
	th := &workload.Threads{}
	_, d := startAgent(t, &agent.Agent{Threads: th})
	before := holding(t)
	for _, c := range []struct {
		name string
		w    *spec.Workload
		udp  bool
	}{
		{"udp_stream", spec.UDPStream, true},
		{"udp_rr", spec.UDPRR, true},
		{"tcp_stream", spec.TCPStream, false},
		{"tcp_crr", spec.TCPCRR, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			udp, tcp := newUDPSink(t), newTCPSink(t, nil)
			port := tcp.port
			if c.udp {
				port = udp.port
			}
			s := spec.Default(c.w)
			s.Host, s.Port, s.Duration, s.Client = "127.0.0.1", fakeDaemon(t, port), 2*time.Second, d.String()
			if c.w.Bulk {
				s.SendSize = 1400
			}
			_, err := agent.Run(context.Background(), s, client.Options{Threads: th})
			if err == nil || !strings.Contains(err.Error(), "did not answer with the session's tag") {
				t.Errorf("got %v, want the endpoint's refusal", err)
			}
			n, b := udp.datagrams(), tcp.received(t)
			t.Logf("%v; the UDP port got %d datagrams, the TCP port %d connections and %d bytes", err, n, tcp.conns.Load(), b)
			if n > 5 || udp.bytes.Load() > 5*auth.GreetingSize {
				t.Errorf("the UDP port got %d datagrams, %d bytes", n, udp.bytes.Load())
			}
			if b > auth.TagSize || tcp.conns.Load() > 1 {
				t.Errorf("the TCP port got %d connections, %d bytes", tcp.conns.Load(), b)
			}
		})
	}
	backTo(t, th, before)
}
