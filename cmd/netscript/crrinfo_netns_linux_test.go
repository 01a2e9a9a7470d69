package main

import (
	"encoding/json"
	"testing"
)

// TestCRRInfoLeavesOutFailedConnects: with a quarter of the data connections'
// SYNs dropped at the server, tcp_crr's tcp_info=True reads only the
// connections whose handshake completed, on threads and multiplexed
// alike. A connect still waiting for its SYN-ACK at the deadline has the
// kernel's default MSS, cwnd and no RTT; were it read, the client's mean
// MSS would fall below the path's, which the server's connections show.
func TestCRRInfoLeavesOutFailedConnects(t *testing.T) {
	needNft(t)
	cli, srv, _ := tcpPair(t, "crrinfo")
	srv.Run(t, "nft", "add", "table", "inet", "syn")
	srv.Run(t, "nft", "add", "chain", "inet", "syn", "in", "{ type filter hook input priority 0 ; }")
	srv.Run(t, "nft", "add", "rule", "inet", "syn", "in", "tcp", "dport", "!=", "12866",
		"tcp", "flags", "&", "(syn|ack)", "==", "syn", "numgen", "random", "mod", "4", "<", "1", "drop")
	for _, c := range []struct {
		name, call string
		mux        bool
	}{
		{"threads", `tcp_crr(host="198.18.0.2", flows=2, duration=2.5, tcp_info=True)`, false},
		{"multiplexed", `tcp_crr(host="198.18.0.2", flows=8, duration=2.5, tcp_info=True)`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			c0 := cli.Counters(t)
			out, _ := clientIn(t, cli, "r = "+c.call+"\nprint(json.encode(r.to_dict()))")
			var f muxFigures
			if err := json.Unmarshal([]byte(out), &f); err != nil || f.Config.Multiplexed != c.mux || f.TCP == nil || f.Remote.TCP == nil {
				t.Fatalf("%s: %v (multiplexed %v, tcp %v, remote.tcp %v)\n%s", c.call, err, f.Config.Multiplexed, f.TCP, f.Remote.TCP, out)
			}
			opens := uint64(delta(c0, cli.Counters(t), "TcpActiveOpens") - 1) // the control connection
			t.Logf("%d transactions; %d connects begun, TCP_INFO of %d; mean mss client %.1f, server %.1f",
				f.Transactions, opens, f.TCP.Connections, f.TCP.MSS, f.Remote.TCP.MSS)
			if f.Transactions == 0 || f.TCP.Connections < f.Transactions {
				t.Fatalf("%d transactions, TCP_INFO of %d connections; want some transactions, each read", f.Transactions, f.TCP.Connections)
			}
			if opens <= f.TCP.Connections {
				t.Fatalf("%d connects begun, %d read: no connect was left unfinished, so this run shows nothing", opens, f.TCP.Connections)
			}
			if f.TCP.MSS != f.Remote.TCP.MSS || f.TCP.MSS < 1000 {
				t.Errorf("mean mss: client %.2f, server %.2f; want the path's on both (a connect that never completed was read)",
					f.TCP.MSS, f.Remote.TCP.MSS)
			}
		})
	}
}
