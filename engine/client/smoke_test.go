package client

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

func startServer(t *testing.T, th *workload.Threads) netip.AddrPort {
	t.Helper()
	srv := server.New(server.Config{Version: "test", Threads: th})
	a, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return netip.MustParseAddrPort(a.String())
}

func TestSmoke(t *testing.T) {
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range []spec.Workload{spec.TCPRR, spec.TCPCRR, spec.UDPRR} {
		s := spec.Default(w)
		s.Host = ap.Addr().String()
		s.Port = int(ap.Port())
		s.Duration = 500 * time.Millisecond
		res, err := Run(context.Background(), s, Options{Threads: th})
		if err != nil {
			t.Fatalf("%v: %v", w, err)
		}
		t.Logf("%v: %.0f %s trans=%d disc=%d sent=%d recv=%d remote=%+v lat=%+v", w, res.Throughput, res.Units, res.Transactions, res.Discarded, res.BytesSent, res.BytesReceived, *res.Remote, *res.Latency)
	}
}
