package agent_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"netscript/engine/agent"
	"netscript/engine/auth"
	"netscript/engine/client"
	"netscript/engine/proto"
	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// TestRelayedLoginGetsNothing is the relay of a token holder's login (issue
// 29, hole 3): a script holding the token runs a test against a hostile
// host (its host=), which passes the script's handshake on, byte for byte,
// to a real daemon with --allow-client and the same token, then sends a
// request of its own on that connection: a tcp_stream from the daemon to
// a third daemon of the mesh. Version 3's challenge and response let that
// through (the daemon ran the stream: 258 MB to a peer in the issue); the
// Noise handshake binds the session's keys to the two ends, so the daemon
// cannot open the relay's frame and ends the session, and the third daemon
// is never asked for anything.
func TestRelayedLoginGetsNothing(t *testing.T) {
	tok := auth.Token("correct horse battery staple")
	th := &workload.Threads{}
	d := server.New(server.Config{Version: "test", Threads: th, Token: tok, Agent: &agent.Agent{Threads: th, Token: tok}})
	t.Cleanup(func() { d.Close() })
	da, err := d.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	peer := server.New(server.Config{Version: "test", Threads: &workload.Threads{}, Token: tok})
	t.Cleanup(func() { peer.Close() })
	pa, err := peer.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int64 // tests the peer admitted
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			if n := peer.Load().Running; n > 0 {
				asked.Add(int64(n))
			}
		}
	}()

	// The hostile host: the relay.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	before := holding(t)
	relayed := make(chan error, 1)
	go func() { relayed <- relay(l, da.String(), pa.String()) }()

	s := spec.Default(spec.TCPRR)
	hp := netip.MustParseAddrPort(l.Addr().String())
	s.Host, s.Port, s.Duration = hp.Addr().String(), int(hp.Port()), 500*time.Millisecond
	client.Run(context.Background(), s, client.Options{Threads: &workload.Threads{}, Token: tok}) // fails: its host is the relay
	if err := <-relayed; err != nil {
		t.Fatalf("the relay: %v", err)
	}
	time.Sleep(time.Second) // time for the daemon to have started the stream, had it taken the request
	if n := asked.Load(); n != 0 {
		t.Fatalf("the relay's own request ran: the peer daemon served a test")
	}
	if l := peer.Load(); l.Running != 0 {
		t.Fatalf("the peer holds %+v", l)
	}
	backTo(t, th, before)
}

// relay takes one connection on l and passes it on to daemon: the two
// preambles, the daemon's messages as they come, the client's first frame
// (its half of the login). In place of the client's next frame it sends a
// RunClient of its own, in clear as version 3 had every frame: a 1 s
// tcp_stream toward peer.
func relay(l net.Listener, daemon, peer string) error {
	c, err := l.Accept()
	if err != nil {
		return err
	}
	defer c.Close()
	d, err := net.Dial("tcp", daemon)
	if err != nil {
		return err
	}
	defer d.Close()
	go io.Copy(c, d) // the daemon's side, all of it
	pre := make([]byte, proto.PreambleSize)
	if _, err := io.ReadFull(c, pre); err != nil {
		return err
	}
	d.Write(pre)
	frame := func() ([]byte, error) { // a length and that many bytes
		var n [4]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return nil, err
		}
		b := make([]byte, binary.BigEndian.Uint32(n[:]))
		_, err := io.ReadFull(c, b)
		return append(n[:], b...), err
	}
	login, err := frame()
	if err != nil {
		return err
	}
	d.Write(login)
	if _, err := frame(); err != nil { // the client's request: dropped
		return err
	}
	ps := spec.Default(spec.TCPStream)
	pp := netip.MustParseAddrPort(peer)
	ps.Host, ps.Port, ps.Duration = pp.Addr().String(), int(pp.Port()), time.Second
	req, err := proto.AppendFrame(nil, proto.TypeRunClient, proto.RunClient{Test: proto.TestSpecFrom(&ps)})
	if err != nil {
		return err
	}
	d.Write(req)
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	io.Copy(io.Discard, c) // until the client gives up
	return nil
}
