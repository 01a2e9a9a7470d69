package server

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"netscript/engine/limits"
	"netscript/engine/sock/socktest"
)

// TestNetperfCounts: the reference netperf 2.7.1 runs every test netscript
// serves against a daemon's netperf listener, exits 0, and what it prints
// of the server's counts (its REMOTE_* output selectors) is what the
// server counted; what it counted itself agrees with them as far as the
// protocol allows (TCP delivers every byte; UDP may lose some; a test's
// last transaction may be cut).
func TestNetperfCounts(t *testing.T) {
	peers := peersDir(t)
	cases := []struct {
		name  string
		args  []string // netperf's arguments but -H, -p
		v6    bool
		iters int // reports the server makes: -i iterations
		lim   func(l *limits.Limits)
	}{
		{name: "TCP_RR", args: []string{"-t", "TCP_RR", "-l", "1"}},
		// The tests with a connection per transaction run by a count, so
		// they leave a few thousand TIME_WAITs, not the kernel's whole
		// table (net.ipv4.tcp_max_tw_buckets), while other tests run; the
		// server's timer of a timed one is TestNetperfTimer's. (netperf's
		// pacing, -w, is no way out: its timer's signal makes netperf fail
		// now and then in its wait for the results.)
		{name: "TCP_CRR_count", args: []string{"-t", "TCP_CRR", "-l", "-2000"}},
		{name: "TCP_CRR_fastopen", args: []string{"-t", "TCP_CRR", "-l", "-2000", "--", "-F"}},
		{name: "UDP_RR", args: []string{"-4", "-t", "UDP_RR", "-l", "1"}},
		{name: "TCP_STREAM", args: []string{"-t", "TCP_STREAM", "-l", "1"}},
		{name: "TCP_MAERTS", args: []string{"-t", "TCP_MAERTS", "-l", "1"}},
		{name: "UDP_STREAM", args: []string{"-t", "UDP_STREAM", "-l", "1", "--", "-m", "1000"}},
		{name: "TCP_CC", args: []string{"-t", "TCP_CC", "-l", "-2000"}},
		{name: "TCP_CC_cpu", args: []string{"-t", "TCP_CC", "-l", "-2000", "-c", "-C"}},
		{name: "TCP_RR_cpu", args: []string{"-t", "TCP_RR", "-l", "1", "-c", "-C"}},
		{name: "TCP_STREAM_cpu", args: []string{"-t", "TCP_STREAM", "-l", "1", "-c", "-C"}},
		{name: "TCP_RR_iterations", args: []string{"-t", "TCP_RR", "-l", "1", "-i", "3,3", "-I", "99,5"}, iters: 3},
		// netperf -i asks again for the data port the server chose: not a
		// port the client chose, so --data-ports does not apply to it.
		{name: "TCP_RR_iterations_data_ports", args: []string{"-t", "TCP_RR", "-l", "1", "-i", "3,3"}, iters: 3,
			lim: func(l *limits.Limits) { l.DataPorts = limits.PortRange{Lo: 1024, Hi: 1024} }},
		{name: "TCP_RR_sizes_burst_nodelay", args: []string{"-t", "TCP_RR", "-l", "1", "--", "-r", "128,4096", "-b", "4", "-D"}},
		{name: "TCP_RR_count_cpu_bind", args: []string{"-t", "TCP_RR", "-l", "-500", "-T", "0,0"}},
		{name: "TCP_STREAM_sizes_buffers_ports", args: []string{"-t", "TCP_STREAM", "-l", "1", "--", "-m", "1000", "-M", "2000",
			"-s", "65536", "-S", "65536", "-P", "0,0"}},
		{name: "TCP_RR_data_addresses_and_port", args: []string{"-t", "TCP_RR", "-l", "1", "--", "-L", "127.0.0.1", "-H", "127.0.0.1",
			"-P", ",PORT"}}, // PORT: one the kernel chose
		{name: "TCP_MAERTS_bytes", args: []string{"-t", "TCP_MAERTS", "-l", "-1000000"}},
		{name: "TCP_RR_ipv6", args: []string{"-6", "-t", "TCP_RR", "-l", "1"}, v6: true},
		{name: "TCP_STREAM_ipv6", args: []string{"-6", "-t", "TCP_STREAM", "-l", "1"}, v6: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			lim := limits.Default()
			if c.lim != nil {
				c.lim(&lim)
			}
			h := newNPHarness(t, lim, c.v6)
			target := hostPort(h.addr4)
			if c.v6 {
				target = []string{"-H", "::1", "-p", h.port6}
			}
			test := testName(c.args)
			classic := test == "TCP_CC" // netperf's own table, no output selectors
			args := c.args
			for i, a := range args {
				if strings.Contains(a, "PORT") {
					args = append([]string(nil), args...)
					args[i] = strings.ReplaceAll(a, "PORT", strconv.Itoa(socktest.Reserve(t, false)))
				}
			}
			if !classic {
				args = withKeyvals(args)
			}
			out := runNetperf(t, peers, append(target, args...)...)
			reps := h.reports()
			want := max(c.iters, 1)
			if len(reps) != want {
				t.Fatalf("the server reported %d tests, want %d: %v\nnetperf:\n%s", len(reps), want, reps, out)
			}
			rep := reps[len(reps)-1]
			if rep.Test != test {
				t.Fatalf("the server ran %s", rep.Test)
			}
			t.Logf("server: %v", rep)
			if classic {
				checkTCPCC(t, out, rep, strings.Contains(strings.Join(c.args, " "), "-C"), 2000)
				return
			}
			checkOmni(t, keyvals(out), rep, strings.Contains(strings.Join(c.args, " "), "-C"), out)
			if slices.Contains(c.args, "-T") && !slices.Equal(rep.Affinity, []int{0}) {
				t.Errorf("-T 0,0: the server's thread ran on CPUs %v, want [0]", rep.Affinity)
			}
		})
	}
}

// testName is the -t argument of netperf's arguments.
func testName(args []string) string {
	for i, a := range args {
		if a == "-t" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// checkOmni compares netperf's keyval output with what the server counted.
func checkOmni(t *testing.T, kv map[string]string, rep NetperfReport, cpu bool, out string) {
	t.Helper()
	if got := kvUint(t, kv, "REMOTE_BYTES_RECVD"); got != rep.BytesReceived {
		t.Errorf("netperf says the server received %d bytes, the server counted %d", got, rep.BytesReceived)
	}
	if got := kvUint(t, kv, "REMOTE_BYTES_SENT"); got != rep.BytesSent {
		t.Errorf("netperf says the server sent %d bytes, the server counted %d", got, rep.BytesSent)
	}
	sent, recvd := kvUint(t, kv, "LOCAL_BYTES_SENT"), kvUint(t, kv, "LOCAL_BYTES_RECVD")
	switch rep.Test {
	case "TCP_RR":
		// netperf does not count the requests of a burst still in flight
		// when its timer ends; the server answers them.
		if per := rep.BytesReceived / max(rep.Transactions, 1); sent > rep.BytesReceived || rep.BytesReceived > sent+8*per {
			t.Errorf("netperf sent %d bytes, the server received %d", sent, rep.BytesReceived)
		}
		if recvd > rep.BytesSent {
			t.Errorf("netperf received %d bytes, more than the server's %d", recvd, rep.BytesSent)
		}
	case "TCP_STREAM":
		// netperf does not count the send its timer cut short.
		if size := kvUint(t, kv, "LOCAL_SEND_SIZE"); sent > rep.BytesReceived || rep.BytesReceived > sent+size {
			t.Errorf("netperf sent %d bytes (%d a send), the server received %d", sent, size, rep.BytesReceived)
		}
		if recvd > rep.BytesSent {
			t.Errorf("netperf received %d bytes, more than the server's %d", recvd, rep.BytesSent)
		}
	case "TCP_CRR":
		// By a count the server serves exactly netperf's transactions.
		calls := kvUint(t, kv, "LOCAL_SEND_CALLS")
		if rep.Transactions > calls || calls > rep.Transactions+1 {
			t.Errorf("netperf sent %d requests, the server answered %d", calls, rep.Transactions)
		}
	case "TCP_MAERTS":
		if recvd == 0 || recvd > rep.BytesSent {
			t.Errorf("netperf received %d bytes of the server's %d", recvd, rep.BytesSent)
		}
	case "UDP_RR", "UDP_STREAM":
		if rep.BytesReceived == 0 || rep.BytesReceived > sent {
			t.Errorf("the server received %d bytes of netperf's %d", rep.BytesReceived, sent)
		}
	}
	if strings.HasSuffix(rep.Test, "RR") && rep.Transactions == 0 {
		t.Errorf("no transactions")
	}
	if cpu {
		if m := kv["REMOTE_CPU_METHOD"]; m != "S" {
			t.Errorf("remote CPU method %q, want S (/proc/stat)", m)
		}
		if got := kvFloat(t, kv, "REMOTE_CPU_UTIL"); math.Abs(got-rep.CPUUtil) > 0.006 || got < 0 {
			t.Errorf("netperf says the server's CPU was %.2f%%, the server measured %.3f%%", got, rep.CPUUtil)
		}
	}
	if t.Failed() {
		t.Logf("netperf:\n%s", out)
	}
}

// checkTCPCC reads netperf's TCP Connect/Close table of a test of count
// transactions: the server made exactly as many, netperf's rate times its
// elapsed time agrees (both are rounded), and with -C its remote CPU column
// is the server's figure.
func checkTCPCC(t *testing.T, out string, rep NetperfReport, cpu bool, count uint64) {
	t.Helper()
	var row []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 {
			if _, err := strconv.Atoi(f[0]); err == nil {
				row = f
				break
			}
		}
	}
	if row == nil {
		t.Fatalf("no result row in netperf's output:\n%s", out)
	}
	elapsed, err1 := strconv.ParseFloat(row[4], 64)
	rate, err2 := strconv.ParseFloat(row[5], 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("result row %q", row)
	}
	if rep.Transactions != count {
		t.Errorf("the server served %d connections, netperf asked for %d", rep.Transactions, count)
	}
	trans := rate * elapsed // elapsed is printed to 10 ms
	if d := math.Abs(trans - float64(rep.Transactions)); d > float64(rep.Transactions)*0.006/max(elapsed, 0.01)+2 {
		t.Errorf("netperf made %.0f connections, the server accepted and closed %d\n%s", trans, rep.Transactions, out)
	}
	if cpu {
		if len(row) < 8 {
			t.Fatalf("no CPU columns in %q", row)
		}
		got, err := strconv.ParseFloat(row[7], 64)
		if err != nil || math.Abs(got-rep.CPUUtil) > 0.006 {
			t.Errorf("netperf's remote CPU column %q, the server measured %.3f%%", row[7], rep.CPUUtil)
		}
	}
}
