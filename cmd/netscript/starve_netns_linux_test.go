package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/engine/netns"
)

// starvedPath returns a client namespace whose tests reach a netscript
// serve at 198.18.2.2:12866 through a server namespace whose nftables
// drop, besides the control connection, what rules (a chain's hook, then
// the rule's match) name.
func starvedPath(t *testing.T, name string, rules ...[2]string) *netns.NS {
	t.Helper()
	cli, srv := netns.New(t, name+"-cli"), netns.New(t, name+"-srv")
	netns.Link(t, cli, srv, "198.18.2.1/24", "198.18.2.2/24")
	serveIn(t, srv, "198.18.2.2:12866")
	srv.Run(t, "nft", "add", "table", "inet", "starve")
	for _, hook := range []string{"input", "output"} {
		srv.Run(t, "nft", "add", "chain", "inet", "starve", hook, "{ type filter hook "+hook+" priority 0 ; }")
	}
	for _, r := range rules {
		srv.Run(t, "nft", append([]string{"add", "rule", "inet", "starve", r[0]}, strings.Fields(r[1])...)...)
	}
	return cli
}

// TestRRULStarvedStream: a download whose data the path drops (every
// full-size segment of the server's data connections; the probes'
// one-byte answers and the upload's ACKs pass) is an rrul() result of no
// bytes beside the upload and the probes that worked, not a failure. A
// call none of whose tests gets anything through still fails: here at
// the data connections' greeting, which the path drops too (a call whose
// every test is set up and then does nothing is TestNothingDone's).
func TestRRULStarvedStream(t *testing.T) {
	cli := starvedPath(t, "starve-down", [2]string{"output", "tcp sport != 12866 meta length > 200 drop"})
	out, _ := clientIn(t, cli, `r = rrul(host="198.18.2.2", preset="tcp_bidirectional", duration=1, idle=0.5, interval=0.25)
print(r.down[0].bytes_received, r.up[0].remote.bytes_received > 0, r.latency.loaded.count > 0)`)
	if got := strings.TrimSpace(out); got != "0 True True" {
		t.Errorf("a starved download: %q, want no bytes down, some up and loaded probes", got)
	}

	// Every data segment either way (a pure ACK is 52 bytes), and UDP.
	cli = starvedPath(t, "starve-all",
		[2]string{"input", "tcp dport != 12866 tcp flags & syn == 0 meta length > 52 drop"},
		[2]string{"output", "tcp sport != 12866 tcp flags & syn == 0 meta length > 52 drop"},
		[2]string{"input", "meta l4proto udp drop"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := cli.Command(ctx, bin, "-c", `rrul(host="198.18.2.2", preset="tcp_bidirectional", duration=1, idle=0.5, interval=0.25)`)
	b, err := childproc.CombinedOutput(cmd)
	if err == nil || !strings.Contains(string(b), "rrul: TCP RR BE: data endpoint 198.18.2.2:") {
		t.Errorf("nothing gets through: %v\n%s", err, b)
	}
}
