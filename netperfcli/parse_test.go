package netperfcli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"netscript/engine/sock"
	"netscript/session"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args  string
		check func(c *Command) bool
	}{
		// The default test, as netperf's.
		{"", func(c *Command) bool { return c.Test.Netperf == "TCP_STREAM" && c.Headers && c.IterMax == 1 }},
		// -t is upper-cased.
		{"-t tcp_rr", func(c *Command) bool { return c.Test.Netperf == "TCP_RR" }},
		// A pair sets both; "a," the first; ",b" the second.
		{"-t TCP_RR -- -r 128,4096", func(c *Command) bool { return c.Request == 128 && c.Response == 4096 }},
		{"-t TCP_RR -- -r 64", func(c *Command) bool { return c.Request == 64 && c.Response == 64 }},
		{"-t TCP_RR -- -r ,4096", func(c *Command) bool { return c.Request == 0 && c.Response == 4096 }},
		{"-t TCP_RR -- -r 32,", func(c *Command) bool { return c.Request == 32 && c.Response == 0 }},
		{"-t TCP_RR -- -P ,12345", func(c *Command) bool { return c.LocalPort == 0 && c.DataPort == 12345 }},
		// Size suffixes: capitals 1024ⁿ, lower case 1000ⁿ.
		{"-- -m 64K -s 1M,2m", func(c *Command) bool {
			return c.SendSize == 64<<10 && c.SendBuffer == 1<<20 && c.RecvBuffer == 2000000
		}},
		{"-- -m 2k", func(c *Command) bool { return c.SendSize == 2000 }},
		// -l: seconds, or a count.
		{"-t TCP_RR -l 30", func(c *Command) bool { return c.Duration == 30*time.Second && c.Count == 0 }},
		{"-t TCP_RR -l -1000", func(c *Command) bool { return c.Count == 1000 && c.Duration == 0 }},
		// -i max,min in either order, clamped to [3, 30]; -i alone is 99 % and 5 %.
		{"-i 3,30", func(c *Command) bool { return c.IterMax == 30 && c.IterMin == 30 && c.Level == 99 && c.Width == 5 }},
		{"-i 30,3", func(c *Command) bool { return c.IterMax == 30 && c.IterMin == 3 }},
		{"-i 1,1", func(c *Command) bool { return c.IterMax == 3 && c.IterMin == 3 }},
		{"-i 100,50", func(c *Command) bool { return c.IterMax == 30 && c.IterMin == 30 }},
		// -I without -i: 10 iterations at most, 3 at least.
		{"-I 95,10", func(c *Command) bool { return c.IterMax == 10 && c.IterMin == 3 && c.Level == 95 && c.Width == 10 }},
		{"-i 30,3 -I 99,1", func(c *Command) bool { return c.Level == 99 && c.Width == 1 }},
		// A single value sets both, as netperf reads -I 99 (a 99 % width) and -i 5.
		{"-I 99", func(c *Command) bool { return c.Level == 99 && c.Width == 99 }},
		{"-I 95,", func(c *Command) bool { return c.Level == 95 && c.Width == 5 }},
		{"-i 5", func(c *Command) bool { return c.IterMax == 5 && c.IterMin == 5 }},
		// * options: a single value sets only the first.
		{"-H 198.18.0.2", func(c *Command) bool { return c.Host == "198.18.0.2" && c.Family == sock.Auto }},
		{"-H ::1,6", func(c *Command) bool { return c.Host == "::1" && c.Family == sock.Inet6 }},
		{"-p 12866", func(c *Command) bool { return c.Port == 12866 }},
		{"-D 0.5,1000 -t TCP_RR", func(c *Command) bool { return c.Demo == 500*time.Millisecond }},
		// -P 0, -B, -c -C, -T, -N, -4/-6, -j, -v.
		{"-P 0 -B run42 -c -C -T 0,1", func(c *Command) bool {
			return !c.Headers && c.Brand == "run42" && c.LocalCPU && c.RemoteCPU && *c.CPU == 0 && *c.RemoteCPUBind == 1
		}},
		{"-T 1", func(c *Command) bool { return *c.CPU == 1 && *c.RemoteCPUBind == 1 }},
		{"-H 198.18.0.2 -N -t UDP_RR -- -P ,7", func(c *Command) bool { return c.NoControl && c.DataPort == 7 }},
		{"-6 -j -v 1", func(c *Command) bool { return c.Family == sock.Inet6 }},
		// Options glued to their values, as getopt reads them.
		{"-tTCP_RR -l10 -Cc", func(c *Command) bool { return c.Test.Netperf == "TCP_RR" && c.Duration == 10*time.Second && c.LocalCPU }},
		// -w/-b pace: 4 operations every 10 ms.
		{"-t UDP_STREAM -w 10ms -b 4", func(c *Command) bool { return c.Rate == 400 }},
		// Test-specific flags and output selectors (case-insensitive, the last wins).
		{"-t TCP_CRR -- -F -D -p 5000,6000", func(c *Command) bool {
			return c.FastOpen && c.NoDelay && c.PortRange.Lo == 5000 && c.PortRange.Hi == 6000
		}},
		{"-t TCP_RR -- -b 8 -k throughput,p99_latency", func(c *Command) bool {
			return c.Burst == 8 && c.Output == OutputKeyval && strings.Join(c.Selectors, ",") == "THROUGHPUT,P99_LATENCY"
		}},
		{"-t TCP_RR -- -o -k", func(c *Command) bool { return c.Output == OutputKeyval && c.Selectors == nil }},
		{"-t TCP_RR -- -O throughput;elapsed_time", func(c *Command) bool {
			return c.Output == OutputHuman && strings.Join(c.Selectors, ",") == "THROUGHPUT,,ELAPSED_TIME"
		}},
		{"-t TCP_RR -- -o ?", func(c *Command) bool { return c.ListSelectors }},
		{"-t TCP_RR -- -L 198.18.0.1,4", func(c *Command) bool { return c.DataLocal == "198.18.0.1" && c.Family == sock.Inet }},
	} {
		c, err := Parse(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("netperf %s: %v", tc.args, err)
			continue
		}
		if !tc.check(c) {
			t.Errorf("netperf %s: parsed as %+v", tc.args, *c)
		}
	}
}

// TestBadInput checks that each refusal is one line as netperf words it
// (or, for what netperf has and netscript does not run, says which and
// why), with netperf's exit status, and that nothing runs.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		args   string
		msg    string // the first line, or its start when it ends in "..."
		status int
		usage  bool
	}{
		{"-t NO_SUCH_TEST", "The test you requested (NO_SUCH_TEST) is unknown to this netperf.", 1, false},
		{"-t omni", "netperf: -t OMNI is not supported by netscript: netscript runs TCP_STREAM, TCP_MAERTS, TCP_RR, TCP_CRR, UDP_RR, UDP_STREAM and TCP_CC", 1, false},
		{"-I 120,1", "Only 95% and 99% confidence level is supported", 255, false},
		{"-I ,10", "Only 95% and 99% confidence level is supported", 255, false},
		{"-I 90", "Only 95% and 99% confidence level is supported", 255, false},
		{"-Q", "netperf: invalid option -- 'Q'", 1, true},
		{"-t", "netperf: option requires an argument -- 't'", 1, true},
		{"-t TCP_RR -- -Q", "netperf: invalid option -- 'Q'", 1, true},
		{"-t TCP_RR -- -r abc", "netperf: invalid size 'abc' for -r...", 1, false},
		{"-i 0,0", "netperf: invalid iteration count '0' in -i 0,0...", 1, false},
		{"-i abc", "netperf: invalid iteration count 'abc'...", 1, false},
		{"-l abc", "netperf: invalid test length 'abc'...", 1, false},
		{"-l 0", "netperf: -l 0 is not supported by netscript: ...", 1, false},
		{"-a 8", "netperf: -a is not supported by netscript: netscript does not align buffers", 1, false},
		{"-Z secret", "netperf: -Z is not supported by netscript: ...", 1, false},
		{"-v 3", "netperf: -v 3 is not supported by netscript: ...", 1, false},
		{"-v 2", "netperf: -v 2 with TCP_STREAM is not supported by netscript: netscript times no send() or recv() call...", 1, false},
		{"-t UDP_STREAM -v 2", "netperf: -v 2 with UDP_STREAM is not supported by netscript: ...", 1, false},
		{"-t TCP_RR -- -K cubic", "netperf: -- -K is not supported by netscript: netscript uses the kernel's congestion control", 1, false},
		{"-t TCP_STREAM -- -r 1,1", "netperf: -r is not supported by netscript: it applies to request/response tests...", 1, false},
		{"-t TCP_RR -- -F", "netperf: -F is not supported by netscript: TCP Fast Open applies to TCP_CRR...", 1, false},
		{"-t TCP_CRR -- -b 4", "netperf: -b is not supported by netscript: TCP_CRR opens a connection per transaction...", 1, false},
		{"-t UDP_STREAM -l -100", "netperf: -l -count with UDP_STREAM is not supported by netscript: ...", 1, false},
		{"-N -t TCP_RR", "netperf: -N without -- -P ,port is not supported by netscript: ...", 1, false},
		{"-t TCP_RR -- -k throughput,bogus", "netperf: unknown output selector 'BOGUS'...", 1, false},
		{"-t TCP_RR -- -k myfile", "netperf: -k myfile is not supported by netscript: netscript reads no selector files...", 1, false},
		{"-t TCP_STREAM -f x", "netperf: -f x is not supported by netscript: ...", 1, false},
		{"extra", "netperf: unexpected argument 'extra'...", 1, false},
	} {
		var out, errb bytes.Buffer
		env := session.New("test")
		st := Main(context.Background(), strings.Fields(tc.args), env, "test", &out, &errb)
		env.Close()
		first, rest, _ := strings.Cut(errb.String(), "\n")
		ok := first == tc.msg
		if m, cut := strings.CutSuffix(tc.msg, "..."); cut {
			ok = strings.HasPrefix(first, m)
		}
		if !ok || st != tc.status {
			t.Errorf("netperf %s: status %d, first line %q; want %d, %q", tc.args, st, first, tc.status, tc.msg)
		}
		if tc.usage != strings.Contains(rest, "Usage: netperf") {
			t.Errorf("netperf %s: usage after the message: %v, want %v", tc.args, !tc.usage, tc.usage)
		}
		if !tc.usage && !strings.HasPrefix(tc.msg, "The test") && rest != "" {
			t.Errorf("netperf %s: more than one line: %q", tc.args, errb.String())
		}
		if out.Len() != 0 {
			t.Errorf("netperf %s: printed %q on stdout; a refusal runs nothing", tc.args, out.String())
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	var out, errb bytes.Buffer
	env := session.New("test")
	defer env.Close()
	if st := Main(context.Background(), []string{"-V"}, env, "v1", &out, &errb); st != 0 || !strings.HasPrefix(out.String(), "Netperf version 2.7.1\n") {
		t.Errorf("-V: %d %q", st, out.String())
	}
	out.Reset()
	if st := Main(context.Background(), []string{"-h"}, env, "v1", &out, &errb); st != 1 || !strings.Contains(out.String(), "netscript's netperf") ||
		!strings.Contains(out.String(), "Usage: netperf [global options] -- [test options]") {
		t.Errorf("-h: %d %q", st, out.String())
	}
	out.Reset()
	if st := Main(context.Background(), []string{"-t", "TCP_RR", "--", "-o", "?"}, env, "v1", &out, &errb); st != 0 ||
		!strings.Contains(out.String(), "THROUGHPUT,THROUGHPUT_UNITS") || !strings.Contains(out.String(), "P99_LATENCY") {
		t.Errorf("-o ?: %d %q", st, out.String())
	}
}
