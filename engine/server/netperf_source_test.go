package server

import (
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/spec"
)

// TestNetperfDataSource: netperf -- -L sends a UDP test's data from
// another address than its control connection, and names that address in
// its request, so the daemon takes it (without it the count-limited UDP_RR
// below would wait for ever). A TCP request names none: its data is taken
// from the control connection's address only, or from anywhere with
// NetperfAnySource (serve --netperf-any-source), as netserver takes it.
func TestNetperfDataSource(t *testing.T) {
	peers := peersDir(t)
	lim := limits.Default()
	h := newNPHarness(t, lim, false)
	runNetperf(t, peers, append(hostPort(h.addr4), "-t", "UDP_RR", "-l", "-300", "--", "-L", "127.0.0.3")...)
	if got := h.reports(); len(got) != 1 || got[0].Transactions != 300 {
		t.Fatalf("UDP_RR from an announced 127.0.0.3: reports %v, want one of 300 transactions", got)
	}
	if s := h.srv.NetperfStats(); s.Strangers != 0 {
		t.Errorf("the announced source counted as a stranger: %+v", s)
	}

	for _, c := range []struct {
		any     bool
		strange uint64
	}{{false, 1}, {true, 0}} {
		srv := New(Config{Limits: lim, NetperfAnySource: c.any})
		setup := &proto.Setup{Test: spec.TCPRR.Netperf, Request: 1, Response: 1}
		tst, err := srv.newTest(spec.TCPRR, setup, netip.MustParseAddr("127.0.0.1"),
			guard{client: netip.MustParseAddr("198.18.0.9"), netperf: true, anySource: srv.cfg.NetperfAnySource})
		if err != nil {
			t.Fatal(err)
		}
		d, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(tst.port)))
		if err != nil {
			t.Fatal(err)
		}
		err = tst.start(time.Now().Add(2 * time.Second))
		if got := tst.strangers.Load(); got != c.strange {
			t.Errorf("any source %v: %d strangers, want %d", c.any, got, c.strange)
		}
		if (err == nil) != c.any {
			t.Errorf("any source %v: start: %v", c.any, err)
		}
		d.Close()
		tst.close()
		srv.Close()
	}
}
