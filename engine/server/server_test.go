package server_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"netscript/engine/auth"
	"netscript/engine/client"
	"netscript/engine/proto"
	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

func start(t *testing.T) (netip.AddrPort, *workload.Threads) {
	t.Helper()
	th := &workload.Threads{}
	// The handshake bound is the daemon's default: it is also the most a
	// client may pause between two data connections, and a loaded machine
	// (the suite runs beside CPU hogs) pauses 256 flows' greetings longer
	// than a second.
	srv := server.New(server.Config{Version: "test", Threads: th, HandshakeTimeout: 10 * time.Second})
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

// TestBadSetupIsRefusedWithAReason: the client sees why, in one line that
// names the serve flag when an operator's bound was crossed, and the
// refusals leave no descriptor or goroutine behind.
func TestBadSetupIsRefusedWithAReason(t *testing.T) {
	th := &workload.Threads{}
	cases := []struct {
		setup proto.Setup
		want  string
	}{
		// Beyond what any server could serve.
		{proto.Setup{Test: "TCP_RR", Request: 1, Response: 1 << 30}, "server: response size 1073741824 out of range 1-67108864"},
		// Beyond this server's bounds (limits.Default).
		{proto.Setup{Test: "TCP_RR", Request: 32 << 20, Response: 1},
			"server: request size 33554432 bytes exceeds this server's limit of 16777216 bytes"},
		{proto.Setup{Test: "TCP_RR", Request: 1, Response: 1, DurationNs: int64(2 * time.Hour)},
			"server: duration 2h0m0s exceeds this server's limit of 1h0m0s"},
		{proto.Setup{Test: "TCP_STREAM", RecvBuffer: 512 << 20},
			"server: receive buffer 536870912 bytes exceeds this server's limit of 268435456 bytes"},
		{proto.Setup{Test: "UDP_RR", Request: 1, Response: 1, DataPort: 80},
			"server: data port 80 exceeds this server's limit of 1024-65535"},
		{proto.Setup{Test: "TCP_RR", Request: 1, Response: 1, Flows: 2000},
			"server: flows 2000 exceeds this server's limit of 1024"},
		{proto.Setup{Test: "TCP_CRR", Request: 1, Response: 1, Flows: 2, DataPorts: []int{40000, 22}},
			"server: data port 22 exceeds this server's limit of 1024-65535"},
	}
	srv := server.New(server.Config{Version: "test", Threads: th})
	defer srv.Close()
	a, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fd0, g0 := fds(t), runtime.NumGoroutine()
	for _, c := range cases {
		conn, err := net.Dial("tcp", a.String())
		if err != nil {
			t.Fatal(err)
		}
		pc := proto.NewConn(conn)
		if err := pc.Handshake(time.Second, false); err != nil {
			t.Fatal(err)
		}
		if _, err := pc.Authenticate(auth.Secret{}, false, time.Second); err != nil {
			t.Fatal(err)
		}
		pc.Send(proto.TypeSetup, c.setup, time.Second)
		var r proto.Ready
		err = pc.Expect(proto.TypeReady, &r, 2*time.Second)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: got %v, want %q", c.setup, err, c.want)
		}
		conn.Close()
	}
	// A refused request leaves nothing behind.
	settles(t, srv, server.Load{})
	backTo(t, fd0, g0)
}
