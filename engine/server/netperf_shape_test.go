package server

import (
	"strconv"
	"strings"
	"testing"

	"netscript/engine/client/netservertest"
	"netscript/engine/limits"
)

// startNetserver runs the reference netserver in the foreground on a port
// the kernel chose, on 127.0.0.1, and returns its address.
func startNetserver(t *testing.T) string {
	t.Helper()
	// netservertest finds netperf 2.7.1 where peersDir does.
	return "127.0.0.1:" + strconv.Itoa(netservertest.Start(t, "127.0.0.1"))
}

// sameShape reports how two netperf outputs differ in shape: their count
// of lines, each line's count of columns, and every word that is not a
// number. Empty if they have the same shape.
func sameShape(a, b string) string {
	la, lb := strings.Split(strings.TrimRight(a, "\n"), "\n"), strings.Split(strings.TrimRight(b, "\n"), "\n")
	if len(la) != len(lb) {
		return strconv.Itoa(len(la)) + " lines against " + strconv.Itoa(len(lb))
	}
	for i := range la {
		fa, fb := strings.Fields(la[i]), strings.Fields(lb[i])
		if len(fa) != len(fb) {
			return "line " + strconv.Itoa(i+1) + ": " + strconv.Itoa(len(fa)) + " columns against " + strconv.Itoa(len(fb))
		}
		for j := range fa {
			_, ea := strconv.ParseFloat(fa[j], 64)
			_, eb := strconv.ParseFloat(fb[j], 64)
			if (ea == nil) != (eb == nil) || (ea != nil && fa[j] != fb[j]) {
				return "line " + strconv.Itoa(i+1) + ": " + strconv.Quote(fa[j]) + " against " + strconv.Quote(fb[j])
			}
		}
	}
	return ""
}

func TestSameShape(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"x 1 2.5\ny", "x 3 4.25\ny", true},
		{"x 1\n", "x 1\nz\n", false},
		{"x 1", "x 1 2", false},
		{"Trans 1", "Tran 1", false},
		{"a 1", "a b", false},
	} {
		if got := sameShape(c.a, c.b) == ""; got != c.same {
			t.Errorf("sameShape(%q, %q) = %v", c.a, c.b, sameShape(c.a, c.b))
		}
	}
}

// TestNetperfSameOutput: a tool that reads netperf's results gets the same
// text from netperf run against netscript serve as against netserver: for
// each test, the same lines and columns and the same words wherever they
// are not numbers.
func TestNetperfSameOutput(t *testing.T) {
	peers := peersDir(t)
	ns := startNetserver(t)
	h := newNPHarness(t, limits.Default(), false)
	for _, args := range [][]string{
		{"-t", "TCP_RR", "-l", "1"},
		{"-t", "TCP_CRR", "-l", "-2000"}, // by a count: a few TIME_WAITs (TestNetperfCounts)
		{"-t", "UDP_RR", "-l", "1"},
		{"-t", "TCP_STREAM", "-l", "1"},
		{"-t", "TCP_MAERTS", "-l", "1"},
		{"-t", "UDP_STREAM", "-l", "1", "--", "-m", "1000"},
		{"-t", "TCP_CC", "-l", "-2000"},
		{"-t", "TCP_RR", "-l", "1", "-c", "-C"},
		{"-t", "TCP_CC", "-l", "-2000", "-c", "-C"},
		{"-t", "TCP_STREAM", "-l", "1", "-c", "-C"},
		{"-t", "REM_CPU"}, // CPU_CALIBRATE
	} {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			t.Parallel()
			want := runNetperf(t, peers, append(hostPort(ns), args...)...)
			got := runNetperf(t, peers, append(hostPort(h.addr4), args...)...)
			if d := sameShape(want, got); d != "" {
				t.Errorf("netperf's output differs in shape: %s\nagainst netserver:\n%s\nagainst netscript serve:\n%s", d, want, got)
			}
		})
	}
}
