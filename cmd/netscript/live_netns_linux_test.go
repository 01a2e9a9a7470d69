package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/engine/netns"
)

// These tests cut the network under a running test, or drop or turn away
// all of its data, in namespaces joined by veth pairs in 198.18.0.0/15.

// scriptIn starts `netscript [args] -c code` in ns; wait returns its exit
// status and stderr.
func scriptIn(t *testing.T, ns *netns.NS, code string, args ...string) (wait func(limit time.Duration) (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cmd := ns.Command(ctx, bin, append(args, "-c", code)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := childproc.Start(cmd); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return func(limit time.Duration) (int, string) {
		t.Helper()
		select {
		case err := <-exited:
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), e.String()
			} else if err != nil {
				t.Fatal(err)
			}
			return 0, e.String()
		case <-time.After(limit):
			cancel()
			t.Fatalf("netscript -c %q in %s still running %v later", code, ns, limit)
		}
		return 0, ""
	}
}

// waitTraffic waits until ns has received n more TCP segments or UDP
// datagrams than before: the test in it is measuring.
func waitTraffic(t *testing.T, ns *netns.NS, n uint64) {
	t.Helper()
	c0 := ns.Counters(t)
	waitFor(t, 60*time.Second, "the test to be measuring", func() bool {
		c := ns.Counters(t)
		return c["TcpInSegs"]+c["UdpInDatagrams"] >= c0["TcpInSegs"]+c0["UdpInDatagrams"]+n
	})
}

// TestLinkDownMidTest: the server's end of the link goes down in the middle
// of a 60 s test. Nothing closes and nothing answers; the client notices
// within a few seconds and exits 1 with the cause and what it measured.
func TestLinkDownMidTest(t *testing.T) {
	netns.Available(t)
	for i, tc := range []struct{ workload, partial string }{
		{"tcp_stream", " bytes sent and "},
		{"tcp_rr", " transactions in "},
	} {
		t.Run(tc.workload, func(t *testing.T) {
			cli, srv := netns.New(t, "down-cli"), netns.New(t, "down-srv")
			subnet := fmt.Sprintf("198.18.%d", 40+i)
			v := netns.Link(t, cli, srv, subnet+".1/24", subnet+".2/24")
			serveIn(t, srv, subnet+".2:12866")
			wait := scriptIn(t, cli, fmt.Sprintf("%s(host=%q, duration=60)", tc.workload, subnet+".2"))
			waitTraffic(t, srv, 1000)
			srv.Run(t, "ip", "link", "set", "dev", v.DevB, "down")
			down := time.Now()
			code, stderr := wait(50 * time.Second)
			took := time.Since(down)
			t.Logf("the client stopped %v after the link went down: %s", took.Round(time.Millisecond), strings.TrimSpace(stderr))
			oneLine(t, ran{stderr: stderr, code: code}, 1, tc.workload+": ", "measured before that: ", tc.partial)
			if !liveCause.MatchString(stderr) {
				t.Errorf("the cause is not the stall or the silence:\n%s", stderr)
			}
			if took > 25*time.Second {
				t.Errorf("the client noticed %v after the link went down", took)
			}
		})
	}
}

// dropData makes ns drop every data packet that follows a test's
// greeting (engine/client's consent before bulk), so the test starts and
// then completes nothing: of the TCP connections to data ports only the
// first is let through (a TCP_CRR flow's one consent connection; every
// later SYN is dropped), and of UDP only datagrams of a greeting's size
// (a request of more than 100 bytes is dropped).
func dropData(t *testing.T, ns *netns.NS) {
	t.Helper()
	ns.Run(t, "nft", "add", "table", "inet", "live")
	ns.Run(t, "nft", "add", "chain", "inet", "live", "in", "{ type filter hook input priority 0 ; }")
	ns.Run(t, "nft", "add", "rule", "inet", "live", "in", "tcp", "dport", "!=", "12866",
		"tcp", "flags", "&", "(syn|ack)", "==", "syn", "limit", "rate", "over", "1/hour", "burst", "1", "packets", "drop")
	ns.Run(t, "nft", "add", "rule", "inet", "live", "in", "meta", "l4proto", "udp", "meta", "length", ">", "100", "drop")
}

// needNft skips a test without the nft command (the nftables package).
func needNft(t *testing.T) {
	t.Helper()
	netns.Available(t)
	if _, err := exec.LookPath("nft"); err != nil {
		t.Skip("no nft (apt-get install nftables)")
	}
}

// TestZeroWorkIsAnError: a test that completes no transaction fails with
// exit status 1 and a line that says what both ends counted instead:
// every data packet after the test's greeting dropped (tcp_crr's
// connections never complete, udp_rr's requests all time out), or every data connection a stranger to
// an authenticated server (a NAT between the two ends).
func TestZeroWorkIsAnError(t *testing.T) {
	needNft(t)
	cli, srv := netns.New(t, "zero-cli"), netns.New(t, "zero-srv")
	link := netns.Link(t, cli, srv, "198.18.44.1/24", "198.18.44.2/24")
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("correct horse battery staple\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("dropped", func(t *testing.T) {
		srv2 := netns.New(t, "zero-drop")
		netns.Link(t, cli, srv2, "198.18.45.1/24", "198.18.45.2/24")
		serveIn(t, srv2, "198.18.45.2:12866")
		dropData(t, srv2)
		for _, tc := range []struct{ code, want string }{
			{`tcp_crr(host="198.18.45.2", duration=2)`, "tcp_crr: no transaction completed (client: 1 in flight at the deadline; server: "},
			// Longer than its stall bound (liveness + timeout): a loop that
			// times out and sends again is not stalled.
			{`udp_rr(host="198.18.45.2", request=200, duration=3, timeout=0.25, liveness=1)`, " timeout, 1 in flight at the deadline; server: "},
		} {
			code, stderr := scriptIn(t, cli, tc.code)(60 * time.Second)
			t.Logf("%s: exit %d: %s", tc.code, code, strings.TrimSpace(stderr))
			oneLine(t, ran{stderr: stderr, code: code}, 1, "no transaction completed", tc.want)
			if strings.Contains(stderr, "no progress") {
				t.Errorf("lost transactions taken for a stall: %s", stderr)
			}
		}
		// The same test run by a daemon for the script (client=) fails
		// the same way.
		agent := cli.Start(t, bin, "serve", "--allow-client", "--listen", "198.18.45.1:12866")
		waitFor(t, 10*time.Second, "the daemon to listen", func() bool { return strings.Contains(agent.Output(), "listening on") })
		code, stderr := scriptIn(t, cli, `udp_rr(host="198.18.45.2", client="198.18.45.1", request=200, duration=3, timeout=0.25)`)(60 * time.Second)
		t.Logf("client=: exit %d: %s", code, strings.TrimSpace(stderr))
		oneLine(t, ran{stderr: stderr, code: code}, 1, "client 198.18.45.1:12866: udp_rr: no transaction completed (client: ", " timeout")
	})
	t.Run("strangers", func(t *testing.T) {
		// The client's data leaves through a NAT to another address: the
		// server, which takes TCP_CRR connections only from the session's
		// own addresses, turns every one away.
		cli.AddAddr(t, link.DevA, "198.18.44.3/32")
		cli.Run(t, "nft", "add", "table", "ip", "nat")
		cli.Run(t, "nft", "add", "chain", "ip", "nat", "post", "{ type nat hook postrouting priority 100 ; }")
		cli.Run(t, "nft", "add", "rule", "ip", "nat", "post", "tcp", "dport", "!=", "12866", "snat", "to", "198.18.44.3")
		p := srv.Start(t, bin, "serve", "--listen", "198.18.44.2:12866", "--token-file", token)
		waitFor(t, 10*time.Second, "the daemon to listen", func() bool { return strings.Contains(p.Output(), "listening on") })
		code, stderr := scriptIn(t, cli, `tcp_crr(host="198.18.44.2", duration=2)`, "--token-file", token)(60 * time.Second)
		t.Logf("exit %d: %s", code, strings.TrimSpace(stderr))
		oneLine(t, ran{stderr: stderr, code: code}, 1, "no transaction completed", " unauthenticated")
	})
}
