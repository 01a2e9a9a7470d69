package server_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/proto"
	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

func start(t *testing.T) (netip.AddrPort, *workload.Threads) {
	t.Helper()
	th := &workload.Threads{}
	srv := server.New(server.Config{Version: "test", Threads: th, HandshakeTimeout: time.Second})
	a, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return netip.MustParseAddrPort(a.String()), th
}

// TestBrokenClientsDoNotHurtAGoodTest: while a good test runs, clients send
// garbage, oversized frames, another version and unknown messages. Each
// broken session ends with an error sent back (or a closed connection), and
// the good test finishes with exact counts.
func TestBrokenClientsDoNotHurtAGoodTest(t *testing.T) {
	ap, th := start(t)
	good := make(chan error, 1)
	var res *struct{ n, remote uint64 }
	go func() {
		s := spec.Default(spec.TCPRR)
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		s.Duration, s.Transactions = 0, 20000
		r, err := client.Run(context.Background(), s, client.Options{Threads: th})
		if err == nil {
			res = &struct{ n, remote uint64 }{r.Transactions, r.Remote.Transactions}
		}
		good <- err
	}()
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	huge := append(proto.AppendPreamble(nil, proto.Version), 0xff, 0xff, 0xff, 0xff, byte(proto.TypeSetup))
	unknown := append(proto.AppendPreamble(nil, proto.Version), 0, 0, 0, 3, 99, '{', '}')
	badSetup, _ := proto.AppendFrame(proto.AppendPreamble(nil, proto.Version), proto.TypeSetup, proto.Setup{Test: "TCP_RR", Request: -4, Response: 1})
	truncated := append(proto.AppendPreamble(nil, proto.Version), 0, 0, 1, 0, byte(proto.TypeSetup), '{')
	inputs := map[string][]byte{
		"random bytes":    garbage,
		"4 GiB length":    huge,
		"wrong version":   proto.AppendPreamble(nil, 42),
		"unknown message": unknown,
		"bad setup":       badSetup,
		"truncated frame": truncated,
	}
	var wg sync.WaitGroup
	for name, in := range inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", ap.String())
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			defer c.Close()
			c.Write(in)
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			// The server must end the session: its preamble, maybe an
			// Error frame, then EOF; never silence past the deadline.
			_, err = io.Copy(io.Discard, c)
			if err != nil && !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("%s: the server did not end the session: %v", name, err)
			}
		}()
	}
	wg.Wait()
	if err := <-good; err != nil {
		t.Fatal(err)
	}
	if res.n != 20000 || res.remote != 20000 {
		t.Fatalf("good test counted %d, server %d; want 20000", res.n, res.remote)
	}
}

// TestBadSetupIsRefusedWithAReason: the client sees why.
func TestBadSetupIsRefusedWithAReason(t *testing.T) {
	ap, _ := start(t)
	c, err := net.Dial("tcp", ap.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pc := proto.NewConn(c)
	if err := pc.Handshake(time.Second, false); err != nil {
		t.Fatal(err)
	}
	pc.Send(proto.TypeSetup, proto.Setup{Test: "TCP_RR", Request: 1, Response: 1 << 30}, time.Second)
	var r proto.Ready
	err = pc.Expect(proto.TypeReady, &r, 2*time.Second)
	if err == nil || err.Error() != "server: response size 1073741824 out of range 1-67108864" {
		t.Fatalf("got %v", err)
	}
	_ = binary.BigEndian
}
