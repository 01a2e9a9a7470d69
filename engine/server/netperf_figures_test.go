package server

import (
	"strconv"
	"strings"
	"testing"

	"netscript/engine/client/netservertest"
	"netscript/engine/limits"
)

// remoteSelectors are the far end's figures netperf prints beyond its
// counts: what it set up, the TOS, priority and congestion control its
// socket had, its CPU fields when it does not measure them, its
// connection's retransmissions.
const remoteSelectors = "RSS_SIZE,RSR_SIZE,REMOTE_SEND_SIZE,REMOTE_RECV_SIZE,REMOTE_SEND_WIDTH,REMOTE_RECV_WIDTH," +
	"REMOTE_NODELAY,REMOTE_CPU_METHOD,REMOTE_CPU_COUNT,REMOTE_CPU_PEAK_ID,REMOTE_CPU_PEAK_UTIL,REMOTE_CPU_PERCENT_USER," +
	"REMOTE_CPU_PERCENT_SWINTR,REMOTE_SOCKET_TOS,REMOTE_SOCKET_PRIO,REMOTE_CONG_CONTROL,REMOTE_TRANSPORT_RETRANS"

// TestNetperfRemoteFigures: netperf 2.7.1 prints the same far-end figures
// against the netperf listener as against its own netserver, for every
// test the listener runs, with a TOS, a priority and a congestion
// control asked for; the retransmissions are a count the kernel kept on
// both (-1 where netserver has none).
func TestNetperfRemoteFigures(t *testing.T) {
	peers := peersDir(t)
	ns := []string{"-H", "127.0.0.1", "-p", strconv.Itoa(netservertest.Start(t, "127.0.0.1"))}
	for _, c := range [][]string{
		{"-t", "TCP_STREAM", "-Y", "0xb8,0x28", "-y", "1,2", "--", "-K", "reno"},
		{"-t", "TCP_MAERTS", "-Y", ",0x28", "--", "-K", ",cubic"},
		{"-t", "TCP_RR", "--", "-r", "100,200", "-D"},
		{"-t", "TCP_CRR", "-l", "-500"},
		{"-t", "UDP_RR", "-Y", "ef"},
		{"-t", "UDP_STREAM", "--", "-m", "1000"},
	} {
		t.Run(c[1], func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-l", "1"}, c...)
			if !contains(args, "--") {
				args = append(args, "--")
			}
			args = append(args, "-k", remoteSelectors)
			h := newNPHarness(t, limits.Default(), false)
			want := keyvals(runNetperf(t, peers, append(ns, args...)...))
			got := keyvals(runNetperf(t, peers, append(hostPort(h.addr4), args...)...))
			for _, k := range strings.Split(remoteSelectors, ",") {
				a, okA := want[k]
				b, okB := got[k]
				if !okA || !okB {
					t.Errorf("%s: printed against netserver %v, against the listener %v", k, okA, okB)
					continue
				}
				if k == "REMOTE_TRANSPORT_RETRANS" {
					if (a == "-1") != (b == "-1") || strings.HasPrefix(b, "-") && b != "-1" {
						t.Errorf("%s = %s against the listener, %s against netserver", k, b, a)
					}
					continue
				}
				if a != b {
					t.Errorf("%s = %q against the listener, %q against netserver", k, b, a)
				}
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
