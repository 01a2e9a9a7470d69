package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"netscript/engine/childproc"
	"netscript/engine/netns"
)

// TestNoSpoofInNamespaces: on a host whose kernel sends from a whole range
// of addresses that are no interface's (a local route, "AnyIP": ip route
// add local 198.18.9.0/24 dev lo), a script run there sends datagrams from
// one of them, and the other host receives them; a daemon there with
// --allow-client, asked by a script to do the same (client=), refuses in
// one line naming the address, and not one datagram arrives.
func TestNoSpoofInNamespaces(t *testing.T) {
	d, v := netns.New(t, "spoof-d"), netns.New(t, "spoof-v")
	netns.Link(t, d, v, "198.18.8.1/24", "198.18.8.2/24")
	d.Run(t, "ip", "link", "set", "lo", "up")
	d.Run(t, "ip", "route", "add", "local", "198.18.9.0/24", "dev", "lo")
	v.AddRoute(t, "198.18.9.0/24", "", "198.18.8.1")
	serveIn(t, v, "198.18.8.2:12866")
	serveIn(t, d, "198.18.8.1:12866", "--allow-client")
	const test = `udp_stream(host="198.18.8.2", local="198.18.9.77", send_size=64, rate=1000, duration=0.5`

	// The kernel alone would let it spoof: a script on d does.
	before := v.Counters(t)
	out, _ := clientIn(t, d, "r = "+test+")\nprint(r.udp.sent > 0)")
	if got := delta(before, v.Counters(t), "UdpInDatagrams"); strings.TrimSpace(out) != "True" || got == 0 {
		t.Fatalf("a script on the host sent from 198.18.9.77: %q, the other host received %d datagrams", out, got)
	}

	// The daemon does not.
	before = v.Counters(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := v.Command(ctx, bin, "-c", test+`, client="198.18.8.1")`)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := childproc.Run(cmd)
	r := ran{stdout: o.String(), stderr: e.String()}
	if err != nil {
		r.code = cmd.ProcessState.ExitCode()
	}
	oneLine(t, r, 1, "udp_stream: client 198.18.8.1:12866: client: this daemon will not run the test: local: 198.18.9.77 is not an address of this daemon's interfaces")
	time.Sleep(300 * time.Millisecond)
	if got := delta(before, v.Counters(t), "UdpInDatagrams"); got != 0 {
		t.Errorf("the other host received %d datagrams from the daemon", got)
	}
}
