package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestBadInputOfIssue6: each bad input of flows, the per-flow lists,
// parallel(), aggregate() and client= gives one line naming the option (or
// the branch, the flow, the daemon) and the script position.
func TestBadInputOfIssue6(t *testing.T) {
	port := refusingPort(t)
	cases := []struct{ code, want string }{
		{`tcp_rr(flows=3, local=["127.0.0.1", "127.0.0.2"])`, "tcp_rr: local: a list of 2 addresses for flows=3: give one per flow"},
		{`tcp_crr(flows=0)`, "tcp_crr: flows: must be at least 1, got 0"},
		{`tcp_rr(flows=4097)`, "tcp_rr: flows: must be at most 4096, got 4097"},
		{`udp_rr(flows=257)`, "udp_rr: flows: must be at most 256 for udp_rr"},
		{`parallel([lambda: tcp_rr(duration=1), "tcp_rr"])`, "parallel: fns[1] is a string, not a function"},
		{`aggregate([tcp_rr(transactions=5), tcp_stream(bytes="64K")])`, "aggregate: results[1] is TCP_STREAM and results[0] is TCP_RR"},
		{fmt.Sprintf(`tcp_rr(host="127.0.0.1", client="127.0.0.1:%d", duration=1)`, port),
			fmt.Sprintf("tcp_rr: client: dial 127.0.0.1:%d: connection refused", port)},
		{`tcp_crr(flows=4, local=["127.0.0.1", "127.0.0.2", "198.18.0.99", "127.0.0.4"], duration=1)`,
			"tcp_crr: flow 2 of 4: local: bind 198.18.0.99:0: cannot assign requested address"},
	}
	for _, c := range cases {
		r := netscript(t, 30*time.Second, "-c", "x = 1\n"+c.code)
		oneLine(t, r, 1, "<command-line>:2:", c.want)
	}
}

// TestFlowsOutput: a result of several flows prints its flow count and
// start skew, and table() shows the flow count.
func TestFlowsOutput(t *testing.T) {
	r := netscript(t, 30*time.Second, "-c", `r = tcp_rr(flows=8, transactions=20)
print(r)
print(table([r]))`)
	if r.code != 0 || !strings.Contains(r.stdout, ", 8 flows, start skew ") || !strings.Contains(r.stdout, "Flows") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestFlowsDescriptorLimit: flows that do not fit in the descriptors a
// process may open are refused before anything is opened, on either end,
// with the numbers and the remedy.
func TestFlowsDescriptorLimit(t *testing.T) {
	limited := func(args ...string) *exec.Cmd {
		return exec.Command("sh", append([]string{"-c", `ulimit -n 120; exec "$0" "$@"`, bin}, args...)...)
	}
	out, err := limited("-c", "x = 1\ntcp_rr(flows=200, duration=0.1)").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "<command-line>:2:7: tcp_rr: flows: 200 flows need 200 file descriptors") ||
		!strings.Contains(string(out), "ulimit -n") {
		t.Errorf("client: %v\n%s", err, out)
	}
	// Not --quiet: the daemon's "listening on" line gives its port.
	d := watchDaemon(t, limited("serve", "--listen", "127.0.0.1:0"), 0)
	r := netscript(t, 30*time.Second, "-c", fmt.Sprintf(`tcp_rr(host="127.0.0.1", port=%d, flows=200, duration=0.1)`, d.port))
	oneLine(t, r, 1, "tcp_rr: set-up: server: flows: the server's process: 200 flows need 201 file descriptors")
}
