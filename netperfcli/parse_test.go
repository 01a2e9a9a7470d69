package netperfcli

import (
	"bytes"
	"strings"
	"testing"
)

func parse(t *testing.T, line string) (*Command, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	c, err := Parse("netperf", shellWords(line), &out, &errb)
	if err != nil {
		t.Fatalf("netperf %s: %v", line, err)
	}
	return c, out.String(), errb.String()
}

// TestParse checks options as netperf reads them.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line  string
		check func(c *Command) bool
	}{
		// Defaults: TCP_STREAM to localhost for 10 s, headers, 10^6 bits.
		{"", func(c *Command) bool {
			return c.TestName == "TCP_STREAM" && c.Host == "localhost" && c.TestTime == 10 && c.PrintHeaders == 1 && c.Format == 'm' && c.embedded()
		}},
		// flent's command line.
		{"-P 0 -v 0 -D -0.20 -4 -H 127.0.0.1 -p 12865 -t TCP_STREAM -l 2 -F /dev/urandom -f m -- -H 127.0.0.1 -k THROUGHPUT,LOCAL_CONG_CONTROL", func(c *Command) bool {
			t := &c.Test
			return c.PrintHeaders == 0 && c.Verbosity == 0 && c.DemoMode == 2 && c.DemoInterval == 200000 && c.Family == afInet &&
				c.TestPort == "12865" && c.TestTime == 2 && c.LocalFill == "/dev/urandom" && c.Format == 'm' &&
				t.DataHost == "127.0.0.1" && t.Output == OutputKeyval && t.Selection == "THROUGHPUT,LOCAL_CONG_CONTROL" && !c.embedded()
		}},
		// flent's UDP_RR: -Y with two values, -e.
		{"-Y 0xb8,0xb8 -H h -t UDP_RR -l 2 -- -e 1", func(c *Command) bool {
			return c.LocalTOS == 0xb8 && c.RemoteTOS == 0xb8 && c.Test.ReceiveTimeout == 1 && c.Test.Protocol == protoUDP && c.Format == 'x'
		}},
		{"-Y cs1,EF", func(c *Command) bool { return c.LocalTOS == 0x20 && c.RemoteTOS == 0xb8 }},
		{"-Y nope", func(c *Command) bool { return c.LocalTOS == -1 && c.RemoteTOS == -1 }},
		// Pairs: "a,b" both, "a," the first, ",b" the second, one value both.
		{"-t TCP_RR -- -r 128,4096", func(c *Command) bool { return c.Test.ReqSize == 128 && c.Test.RspSize == 4096 }},
		{"-t TCP_RR -- -r 64", func(c *Command) bool { return c.Test.ReqSize == 64 && c.Test.RspSize == 64 }},
		{"-t TCP_RR -- -r ,4096", func(c *Command) bool { return c.Test.ReqSize == 1 && c.Test.RspSize == 4096 }},
		{"-t TCP_RR -- -P ,12345", func(c *Command) bool { return c.Test.LocalDataPort == "0" && c.Test.RemoteDataPort == "12345" }},
		// Sizes as convert() reads them: 1024ⁿ, 1000ⁿ, 0, -1, words as 0.
		{"-- -m 64K -s 1M,2m", func(c *Command) bool {
			return c.Test.SendSize == 64<<10 && c.Test.LSSReq == 1<<20 && c.Test.LSRReq == 2000000
		}},
		{"-t TCP_RR -- -s 0 -S 0", func(c *Command) bool { return c.Test.LSSReq == 0 && c.Test.RSRReq == 0 }},
		{"-t UDP_RR -- -s -1 -S -1", func(c *Command) bool { return c.Test.LSSReq == -1 && c.Test.RSSReq == -1 }},
		{"-t TCP_RR -- -r abc", func(c *Command) bool { return c.Test.ReqSize == 0 }},
		// -l: seconds, a count, 0 (until interrupted).
		{"-t TCP_RR -l -1000", func(c *Command) bool { return c.TestUnits == 1000 && c.TestTime == 0 }},
		{"-l 0", func(c *Command) bool { return c.TestTime == 0 && c.TestUnits == 0 }},
		// -i max,min clamped to [3, 30]; -I alone is 10,3; both set 99 % and 5 %.
		{"-i 3,30", func(c *Command) bool {
			return c.IterMax == 30 && c.IterMin == 30 && c.Level == 99 && c.Interval == 0.05
		}},
		{"-i 1,1", func(c *Command) bool { return c.IterMax == 3 && c.IterMin == 3 }},
		{"-I 95,10", func(c *Command) bool { return c.IterMax == 10 && c.IterMin == 3 && c.Level == 95 && c.Interval == 0.1 }},
		// -c and -C take the rate LOC_CPU printed.
		{"-t TCP_RR -c 100 -C 100 -i 10,3", func(c *Command) bool {
			return c.LocalCPU && c.RemoteCPU && c.LocalCPURate == 100 && c.IterMax == 10
		}},
		// Clusters and glued values.
		{"-tTCP_RR -l10 -Cc", func(c *Command) bool { return c.TestName == "TCP_RR" && c.TestTime == 10 && c.LocalCPU && c.RemoteCPU }},
		// -w/-b, -T, -N, -B, -P.
		{"-t UDP_STREAM -w 10ms -b 4", func(c *Command) bool { return c.IntervalUsecs == 10000 && c.IntervalBurst == 4 }},
		{"-T 1", func(c *Command) bool { return c.LocalAffinity == 1 && c.RemoteAffinity == 1 && c.CPUBinding }},
		{"-H h -N -t UDP_RR -- -P ,7", func(c *Command) bool { return c.NoControl && c.Test.RemoteDataPort == "7" }},
		{"-H h -N -t TCP_STREAM", func(c *Command) bool { return c.Test.RemoteDataPort == "discard" }},
		// -t omni: the direction from -d, -m, -M and -r; the protocol from -T.
		{"-t omni", func(c *Command) bool { return c.Test.Direction == dirXmit && !c.Test.Legacy && c.Format == 'm' }},
		{"-t omni -- -d rr -T udp", func(c *Command) bool { return c.isRR() && c.Test.Protocol == protoUDP && c.Format == 'x' }},
		{"-t omni -- -d maerts", func(c *Command) bool { return c.Test.Direction == dirRecv }},
		{"-t omni -- -d 6", func(c *Command) bool { return c.isRR() }},
		{"-t omni -- -r 64K -b 12", func(c *Command) bool { return c.isRR() && c.Test.ReqSize == 64<<10 && c.Test.Burst == 12 }},
		{"-t omni -- -c", func(c *Command) bool { return c.isCC() && c.directionName() == "Connection" }},
		// A migrated test ignores -d.
		{"-t TCP_STREAM -- -d rr", func(c *Command) bool { return c.Test.Direction == dirXmit }},
		// Output selection: the last of -k/-o/-O wins; '?' lists.
		{"-t TCP_RR -- -o -k", func(c *Command) bool { return c.Test.Output == OutputKeyval && c.Test.Selection == "" }},
		{"-t TCP_RR -- -o ?", func(c *Command) bool { return c.Test.List == OutputCSV }},
		// Test-specific -H and -L with families and masks.
		{"-- -H 198.18.0.2/24,6 -L 198.18.0.1,4", func(c *Command) bool {
			t := &c.Test
			return t.DataHost == "198.18.0.2" && t.RemoteMaskLen == 24 && t.RemoteFamily == afInet6 && t.DataLocal == "198.18.0.1" && t.LocalFamily == afInet
		}},
		// -K sets both with one name, as netperf's break_args does.
		{"-t TCP_STREAM -- -K cubic", func(c *Command) bool { return c.Test.CongLocal == "cubic" && c.Test.CongRemote == "cubic" }},
		// -f x for a stream test is megabits, as netperf turns it.
		{"-t TCP_STREAM -f x", func(c *Command) bool { return c.Format == 'm' }},
		// TCP_CC's options are the BSD tests' and its format by name.
		{"-t TCP_CC -- -p 5000,6000 -D", func(c *Command) bool {
			return !c.Test.Omni && c.Test.PortRange && c.Test.PortMin == 5000 && c.Test.NoDelay && c.Format == 'm'
		}},
	} {
		c, _, _ := parse(t, tc.line)
		if !tc.check(c) {
			t.Errorf("netperf %s: parsed as %+v", tc.line, *c)
		}
	}
}

// TestWhatNetperfSays checks what netperf prints while it reads a command
// line it goes on with, and the lines it stops at, on its streams.
func TestWhatNetperfSays(t *testing.T) {
	// An option a test does not have: getopt's complaint, then the test.
	if _, _, e := parse(t, "-t TCP_CC -- -o all"); e != "netperf: invalid option -- 'o'\n" {
		t.Errorf("TCP_CC -o: %q", e)
	}
	if _, o, _ := parse(t, "-k 1"); o != "I don't know how to get dirty.\n" {
		t.Errorf("-k: %q", o)
	}
	for _, tc := range []struct {
		line   string
		msg    string
		status int
		stdout bool
		usage  bool
	}{
		{"-I 120,1", "Only 95% and 99% confidence level is supported", 255, true, false},
		{"-I 90", "Only 95% and 99% confidence level is supported", 255, true, false},
		{"-Q", "", 1, false, true},
		{"-t", "", 1, false, true},
		{"-H h -N -t TCP_CC", "No default port known for the TCP_CC test, please set one yourself", 255, true, false},
	} {
		var out, errb bytes.Buffer
		_, err := Parse("netperf", strings.Fields(tc.line), &out, &errb)
		e, ok := err.(*Error)
		if !ok || e.Msg != tc.msg || e.Status != tc.status || e.Stdout != tc.stdout || e.Usage != tc.usage {
			t.Errorf("netperf %s: %#v", tc.line, err)
		}
	}
	var out, errb bytes.Buffer
	if _, err := Parse("/usr/bin/netperf", []string{"-Q"}, &out, &errb); err == nil || errb.String() != "/usr/bin/netperf: invalid option -- 'Q'\n" {
		t.Errorf("-Q: %v %q", err, errb.String())
	}
	errb.Reset()
	if _, err := Parse("netperf", []string{"-t"}, &out, &errb); err == nil || errb.String() != "netperf: option requires an argument -- 't'\n" {
		t.Errorf("-t: %v %q", err, errb.String())
	}
}

// TestUnknownTests: netperf's tests netscript does not run are named in
// one line; a name netperf does not know gets netperf's words.
func TestUnknownTests(t *testing.T) {
	for _, tc := range []struct{ line, msg string }{
		{"-t NO_SUCH_TEST", "The test you requested (NO_SUCH_TEST) is unknown to this netperf."},
		{"-t TCP_SENDFILE", "netperf: -t TCP_SENDFILE is not run by netscript: it sends with send()"},
		{"-t omni -- -T sctp", "netperf: -t OMNI with protocol SCTP, direction Send is not run by netscript: it runs TCP and UDP tests"},
		{"-t omni -- -T udp -d recv", "netperf: -t OMNI with protocol UDP, direction Receive is not run by netscript: it runs no UDP test where netserver sends"},
		{"-t TCP_RR -- -r 0,1", "netperf: -- -r with an empty request or response is not run by netscript: netperf then sends nothing"},
	} {
		c, _, _ := parse(t, tc.line)
		_, err := c.Spec()
		if err == nil || !strings.HasPrefix(c.explain(err).Error(), tc.msg) {
			t.Errorf("netperf %s: %v", tc.line, err)
		}
	}
}

// TestSpecs checks the tests command lines become.
func TestSpecs(t *testing.T) {
	c, _, _ := parse(t, "-H 198.18.0.2 -t TCP_STREAM -l 3 -Y 0xb8 -- -m 1400 -M ,2000 -s 0 -K cubic -C -q 1000000")
	s, err := c.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if s.Host != "198.18.0.2" || !s.Netserver() || s.Port != NetserverPort || s.SendSize != 1400 || s.SendBuffer != 1 || s.Duration.Seconds() != 3 {
		t.Errorf("spec %+v", s)
	}
	if s.Knobs.Given() {
		t.Errorf("knobs against a netserver go in the request: %+v", s.Knobs)
	}
	c, _, _ = parse(t, "-t TCP_STREAM -Y 0xb8 -- -K cubic -C")
	s, err = c.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if !s.Knobs.HasTOS || s.Knobs.TOS != 0xb8 || s.Knobs.Congestion != "cubic" || !s.Knobs.Cork || s.Host != "" {
		t.Errorf("embedded knobs %+v", s.Knobs)
	}
	c, _, _ = parse(t, "-t TCP_MAERTS -- -m ,8000 -M ,9000")
	if s, _ = c.Spec(); s.SendSize != 8000 || s.RecvSize != 9000 {
		t.Errorf("TCP_MAERTS sizes %d, %d", s.SendSize, s.RecvSize)
	}
	c, _, _ = parse(t, "-t UDP_RR -w 10 -b 5 -- -e 3")
	if s, _ = c.Spec(); s.Rate != 500 || s.Timeout.Seconds() != 3 {
		t.Errorf("UDP_RR pacing %v, timeout %v", s.Rate, s.Timeout)
	}
}
