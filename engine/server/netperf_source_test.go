package server

import (
	"context"
	"net"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/spec"
)

// TestNetperfDataSource: netperf -- -L sends a UDP test's data from
// another address than its control connection, and names that address in
// its request. The daemon answers a UDP test's datagrams where they say
// they come from, so it refuses such a request (errno 22, and the log says
// why) rather than answer an address that did not ask: the request could
// name anyone's. It used to take it, and a request naming another host's
// address made the daemon a reflector. A TCP request names none: its data
// is taken from the control connection's address only, or from anywhere
// with NetperfAnySource (serve --netperf-any-source), as netserver takes
// it; a UDP test's never from anywhere.
func TestNetperfDataSource(t *testing.T) {
	peers := peersDir(t)
	lim := limits.Default()
	h := newNPHarness(t, lim, false)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(peers, "netperf"), append(hostPort(h.addr4), "-t", "UDP_RR", "-l", "-300", "--", "-L", "127.0.0.3")...)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "remote error 22") {
		t.Fatalf("UDP_RR announcing 127.0.0.3: %v\n%s", err, out)
	}
	if got := h.reports(); len(got) != 0 {
		t.Fatalf("UDP_RR announcing 127.0.0.3 ran: %v", got)
	}
	if !strings.Contains(h.logBuf.String(), "the request names 127.0.0.3 as netperf's data address, not its control connection's 127.0.0.1") {
		t.Errorf("the log does not say why:\n%s", h.logBuf.String())
	}
	// The same from the control connection's own address runs.
	runNetperf(t, peers, append(hostPort(h.addr4), "-t", "UDP_RR", "-l", "-300", "--", "-L", "127.0.0.1")...)
	if got := h.reports(); len(got) != 1 || got[0].Transactions != 300 {
		t.Fatalf("UDP_RR from 127.0.0.1: reports %v, want one of 300 transactions", got)
	}

	// A UDP test takes no stranger's datagram, any source or not.
	for _, anySource := range []bool{false, true} {
		srv := New(Config{Limits: lim, NetperfAnySource: anySource})
		setup := &proto.Setup{Test: spec.UDPRR.Netperf, Request: 1, Response: 1}
		tst, err := srv.newTest(spec.UDPRR, setup, netip.MustParseAddr("127.0.0.1"),
			guard{client: netip.MustParseAddr("127.0.0.1"), netperf: true, anySource: anySource})
		if err != nil {
			t.Fatal(err)
		}
		d, err := net.DialUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 9)}, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: tst.port})
		if err != nil {
			t.Fatal(err)
		}
		d.Write([]byte{1})
		d.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if n, _ := d.Read(make([]byte, 8)); n != 0 {
			t.Errorf("any source %v: a stranger's datagram was answered", anySource)
		}
		d.Close()
		tst.close()
		srv.Close()
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
