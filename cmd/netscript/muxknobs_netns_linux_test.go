package main

import (
	"encoding/json"
	"testing"

	"netscript/engine/netns"
)

// These tests check the socket knobs of tests with more than 4 flows,
// which run multiplexed on a few epoll threads per end, against what the
// namespaces' kernels counted.

// muxFigures is the part of a multiplexed test's result these tests read.
type muxFigures struct {
	Transactions uint64 `json:"transactions"`
	TCP          *struct {
		Connections uint64  `json:"connections"`
		Congestion  string  `json:"congestion"`
		MSS         float64 `json:"mss"`
	} `json:"tcp"`
	Remote struct {
		Transactions uint64 `json:"transactions"`
		TCP          *struct {
			Connections uint64  `json:"connections"`
			Congestion  string  `json:"congestion"`
			MSS         float64 `json:"mss"`
		} `json:"tcp"`
	} `json:"remote"`
	Config struct {
		Multiplexed bool `json:"multiplexed"`
	} `json:"config"`
}

// runMux runs one multiplexed test from cli and returns its figures.
func runMux(t *testing.T, cli *netns.NS, call string) muxFigures {
	t.Helper()
	out, _ := clientIn(t, cli, "r = "+call+"\nprint(json.encode(r.to_dict()))")
	var f muxFigures
	if err := json.Unmarshal([]byte(out), &f); err != nil || !f.Config.Multiplexed || f.TCP == nil || f.Remote.TCP == nil {
		t.Fatalf("%s: %v (multiplexed %v, tcp %v, remote.tcp %v)\n%s", call, err, f.Config.Multiplexed, f.TCP, f.Remote.TCP, out)
	}
	return f
}

// TestQuickAckMultiplexed: quickack=True on 8 multiplexed tcp_rr flows
// re-arms TCP_QUICKACK after each receive on both ends, which the kernels
// show as segments: each receive sends its ACK at once, before the reply,
// so each end sends at least two segments per transaction; without it the
// ACK rides on the reply (about one).
func TestQuickAckMultiplexed(t *testing.T) {
	cli, srv, _ := tcpPair(t, "qack")
	const flows, per = 8, 200
	const n = flows * per
	for _, quick := range []string{"False", "True"} {
		c0, s0 := cli.Counters(t), srv.Counters(t)
		f := runMux(t, cli, `tcp_rr(host="198.18.0.2", flows=8, transactions=200, quickack=`+quick+`)`)
		dc, ds := delta(c0, cli.Counters(t), "TcpOutSegs"), delta(s0, srv.Counters(t), "TcpOutSegs")
		if f.Transactions != n || f.Remote.Transactions != n {
			t.Fatalf("quickack=%s: %d transactions, the server %d; want %d", quick, f.Transactions, f.Remote.Transactions, n)
		}
		t.Logf("quickack=%s: %d transactions; segments sent: client %d, server %d", quick, n, dc, ds)
		if quick == "True" && (dc < 2*n || ds < 2*n) {
			t.Errorf("quickack=True: the client sent %d segments, the server %d for %d transactions; want at least two per transaction on each end",
				dc, ds, n)
		}
	}
}

// TestCRRKnobsMultiplexed: 8 multiplexed tcp_crr flows with
// tcp_info=True read one connection per transaction on both ends, as many
// as the client's kernel opened for them (beyond each flow's greeting),
// with the algorithm and (below the veth's 1448) the MSS asked for.
func TestCRRKnobsMultiplexed(t *testing.T) {
	cli, _, _ := tcpPair(t, "mcrr")
	c0 := cli.Counters(t)
	f := runMux(t, cli, `tcp_crr(host="198.18.0.2", flows=8, transactions=25, tcp_info=True, congestion="reno", mss=1200)`)
	// The control connection, and each flow's first connection, which
	// greets the endpoint before its transactions (its consent).
	opens := delta(c0, cli.Counters(t), "TcpActiveOpens") - 1 - 8
	if f.Transactions != 200 || f.TCP.Connections != 200 || f.Remote.TCP.Connections != 200 || opens != 200 {
		t.Errorf("%d transactions, TCP_INFO of %d connections on the client and %d on the server, %d opened; want 200 of each",
			f.Transactions, f.TCP.Connections, f.Remote.TCP.Connections, opens)
	}
	if f.TCP.Congestion != "reno" || f.Remote.TCP.Congestion != "reno" || f.TCP.MSS > 1200 || f.TCP.MSS <= 0 || f.Remote.TCP.MSS > 1200 {
		t.Errorf("congestion: client %q, server %q; mss: client %.0f, server %.0f; want reno and at most 1200",
			f.TCP.Congestion, f.Remote.TCP.Congestion, f.TCP.MSS, f.Remote.TCP.MSS)
	}
}
