package netperfcli

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"netscript/engine/client/netservertest"
	"netscript/engine/result"
	"netscript/script"
	"netscript/session"
	"netscript/starlib/thread"
)

// runScript runs the script of a command line and returns what it printed
// and the results it got.
func runScript(t *testing.T, line string) (string, string, []*result.Result) {
	t.Helper()
	c, _, _ := parse(t, line)
	src, err := c.Script()
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if !strings.HasPrefix(src, "# netperf "+line+"\n") {
		t.Errorf("%s: the script does not start with the command line:\n%s", line, src)
	}
	env := session.New("test")
	defer env.Close()
	var out bytes.Buffer
	env.Stdout = &out
	var got []*result.Result
	env.OnResult = func(r *result.Result, err error) {
		if err == nil {
			got = append(got, r)
		}
	}
	th := thread.New("main", env, context.Background())
	if _, err := script.Exec(th, &session.Script{Name: "netperf.star", Src: []byte(src)}); err != nil {
		t.Fatalf("%s: the script fails: %v\n%s", line, err, src)
	}
	return src, out.String(), got
}

// TestScriptRoundTrip prints the script of command lines, runs it, and
// checks it runs the same test.
func TestScriptRoundTrip(t *testing.T) {
	for _, tc := range []struct{ line, test string }{
		{"-t TCP_RR -l 1 -- -r 32,64", "TCP_RR"},
		{"-t TCP_STREAM -l 1 -c -C -B run1 -- -m 8K", "TCP_STREAM"},
		{"-t TCP_CRR -l -200 -- -p 20000,30000", "TCP_CRR"},
		{"-t TCP_CC -l -200", "TCP_CC"},
		{"-t TCP_MAERTS -l 1 -f K", "TCP_MAERTS"},
		{"-t UDP_STREAM -l 1 -D 0.25 -- -m 1400", "UDP_STREAM"},
		{"-t omni -l 1 -- -d rr -T udp -r 100,200", "UDP_RR"},
	} {
		_, out, got := runScript(t, tc.line)
		if len(got) != 1 {
			t.Fatalf("%s: %d results", tc.line, len(got))
		}
		r := got[0]
		c, _, _ := parse(t, tc.line)
		s, _ := c.Spec()
		switch {
		case r.Test != tc.test:
			t.Errorf("%s: the script ran %s", tc.line, r.Test)
		case !(r.Throughput > 0):
			t.Errorf("%s: the script measured %v %s", tc.line, r.Throughput, r.Units)
		case r.Config.Request != s.Request || r.Config.Response != s.Response || r.Config.SendSize != s.SendSize && s.SendSize > 0:
			t.Errorf("%s: the script's test differs: %+v", tc.line, r.Config)
		case c.LocalCPU && r.LocalCPU == nil:
			t.Errorf("%s: the script measured no CPU", tc.line)
		case c.TestUnits > 0 && r.Transactions != uint64(c.TestUnits):
			t.Errorf("%s: %d transactions, want %d", tc.line, r.Transactions, c.TestUnits)
		}
		if !strings.Contains(out, tc.test) {
			t.Errorf("%s: the script printed no table:\n%s", tc.line, out)
		}
	}
}

// TestScriptKeepsOutput: the script prints every iteration in the
// command's form: its selectors, and without the header line with -P 0.
func TestScriptKeepsOutput(t *testing.T) {
	src, out, got := runScript(t, "-t TCP_RR -l 1 -i 3,3 -I 95,50 -P 0 -- -o throughput,p99_latency,local_cong_control")
	if !strings.Contains(src, `print(csv(results, "THROUGHPUT,P99_LATENCY", header = False))`) {
		t.Errorf("the script's output is not -o's:\n%s", src)
	}
	lines := regexp.MustCompile(`(?m)^[0-9.]+,[0-9.]+$`).FindAllString(out, -1)
	if len(got) != 3 || len(lines) != 3 {
		t.Errorf("%d results, %d CSV lines; want 3 of each:\n%s", len(got), len(lines), out)
	}
	src, out, _ = runScript(t, "-t TCP_RR -l 1 -- -k throughput,request_size")
	if !strings.Contains(src, `print(kv(r, "THROUGHPUT,REQUEST_SIZE"))`) || !strings.Contains(out, "REQUEST_SIZE=1") {
		t.Errorf("-k:\n%s\n%s", src, out)
	}
}

// run runs a command line in this process against the embedded server.
func run(t *testing.T, line string) (string, string, int) {
	t.Helper()
	r := ours(t, shellWords(line))
	return r.out, r.err, r.status
}

// TestEmbedded: without -H the test runs against the embedded loopback
// server, and the banner names netperf's localhost.
func TestEmbedded(t *testing.T) {
	out, errOut, st := run(t, "-t TCP_RR -l 1")
	if st != 0 || !strings.HasPrefix(out, "MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to localhost () port 0 AF_INET : histogram : interval : demo : first burst 0\n") {
		t.Errorf("%d %s\n%s", st, errOut, out)
	}
	out, errOut, st = run(t, "-t TCP_STREAM -l 1 -P 0 -Y 0xb8 -- -K reno -k LOCAL_SOCKET_TOS,REMOTE_SOCKET_TOS,LOCAL_CONG_CONTROL,REMOTE_CONG_CONTROL,TRANSPORT_MSS")
	if st != 0 || !regexp.MustCompile(`^LOCAL_SOCKET_TOS=0xb8\nREMOTE_SOCKET_TOS=0xb8\nLOCAL_CONG_CONTROL=reno\nREMOTE_CONG_CONTROL=reno\nTRANSPORT_MSS=[1-9][0-9]*\n$`).MatchString(out) {
		t.Errorf("knobs: %d %s\n%s", st, errOut, out)
	}
}

// TestInterimForms checks -D's keyval and CSV forms, a negative interval
// as a positive one.
func TestInterimForms(t *testing.T) {
	out, errOut, st := run(t, "-t TCP_RR -l 1 -D -0.2 -P 0 -- -k throughput")
	if st != 0 || !regexp.MustCompile(`(?m)^NETPERF_INTERIM_RESULT\[0\]=[0-9]+\.[0-9]{2}\nNETPERF_UNITS\[0\]=Trans/s\nNETPERF_INTERVAL\[0\]=0\.[0-9]{3}\nNETPERF_ENDING\[0\]=[0-9]+\.[0-9]{3}\n`).MatchString(out) {
		t.Errorf("keyval interims: %d %s\n%s", st, errOut, out)
	}
	out, errOut, st = run(t, "-t TCP_STREAM -l 1 -D 0.2 -P 0 -- -o throughput")
	if st != 0 || !interimCSV.MatchString(strings.Split(out, "\n")[0]) {
		t.Errorf("CSV interims: %d %s\n%s", st, errOut, out)
	}
}

// TestInterrupted: a test cut short (Ctrl-C) reports what it measured,
// as netperf does.
func TestInterrupted(t *testing.T) {
	env := session.New("test")
	defer env.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var out, errb bytes.Buffer
	if st := MainProgram(ctx, "netperf", strings.Fields("-t TCP_RR -l 30 -P 0"), env, "test", &out, &errb); st != 0 {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || len(strings.Fields(lines[0])) != 6 {
		t.Errorf("not netperf's table:\n%s", out.String())
	}
}

// TestMaertsAgainstNetserver: a timed TCP_MAERTS against a netserver pairs
// what both ends counted over the same interval; netserver was asked for
// a second more and its extra second's bytes were REMOTE_BYTES_SENT's.
// netserver counts a send when it returns, so a send cut short by its
// alarm may leave REMOTE_BYTES_SENT up to one send below what arrived.
func TestMaertsAgainstNetserver(t *testing.T) {
	const maxSend = 4 << 20 // netserver's send size for MAERTS is at most its socket buffer
	port := netservertest.Start(t, "127.0.0.1")
	r := ours(t, []string{"-H", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "TCP_MAERTS", "-l", "2", "-P", "0",
		"--", "-k", "LOCAL_BYTES_RECVD,REMOTE_BYTES_SENT,ELAPSED_TIME"})
	kv := keyvals(r.out)
	local, remote, el := numOf(kv["LOCAL_BYTES_RECVD"]), numOf(kv["REMOTE_BYTES_SENT"]), numOf(kv["ELAPSED_TIME"])
	if r.status != 0 || !(local > 0) || remote > local*1.1+8<<20 || remote < local-maxSend || el > 2.005 || el < 1.8 {
		t.Errorf("status %d: local %v bytes, remote %v, in %v s\n%s", r.status, local, remote, el, r.err)
	}
}
