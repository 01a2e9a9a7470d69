package netperfcli

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"netscript/engine/result"
	"netscript/script"
	"netscript/session"
	"netscript/starlib"
	"netscript/starlib/thread"
)

// TestScriptRoundTrip prints the script of a command line, runs it, and
// checks it measures the same kind of figures the command line prints.
func TestScriptRoundTrip(t *testing.T) {
	for _, line := range []string{
		"-t TCP_RR -l 1 -- -r 32,64 -k throughput",
		"-t TCP_STREAM -l 1 -c -C -B run1 -- -m 8K",
		"-t UDP_RR -l 1 -i 3,3 -I 95,50",
		"-t TCP_CRR -l -200 -- -p 20000,30000",
		"-t TCP_CC -l -200",
		"-t TCP_MAERTS -l 1 -f K",
		"-t UDP_STREAM -l 1 -D 0.25 -- -m 1400",
	} {
		c, err := Parse(strings.Fields(line))
		if err != nil {
			t.Fatal(err)
		}
		src := c.Script()
		if !strings.HasPrefix(src, "# netperf "+line+"\n") {
			t.Errorf("%s: the script does not start with the command line:\n%s", line, src)
		}
		env := session.New("test")
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
			env.Close()
			t.Fatalf("%s: the script fails: %v\n%s", line, err, src)
		}
		env.Close()
		if len(got) < c.IterMin {
			t.Fatalf("%s: %d results, want at least %d", line, len(got), c.IterMin)
		}
		r := got[len(got)-1]
		s, _ := c.Spec()
		switch {
		case r.Test != c.Test.Netperf:
			t.Errorf("%s: the script ran %s", line, r.Test)
		case r.Units != engineUnitsOf(c) || !(r.Throughput > 0):
			t.Errorf("%s: the script measured %v %s", line, r.Throughput, r.Units)
		case r.Config.Request != s.Request || r.Config.Response != s.Response || r.Brand != c.Brand:
			t.Errorf("%s: the script's test differs: %+v", line, r.Config)
		case c.LocalCPU && r.LocalCPU == nil:
			t.Errorf("%s: the script measured no CPU", line)
		case c.Count > 0 && r.Transactions != uint64(c.Count):
			t.Errorf("%s: %d transactions, want %d", line, r.Transactions, c.Count)
		}
		if !strings.Contains(out.String(), c.Test.Netperf) {
			t.Errorf("%s: the script printed no table:\n%s", line, out.String())
		}
	}
}

// TestScriptOptions checks the options a command line becomes.
func TestScriptOptions(t *testing.T) {
	c, err := Parse(strings.Fields("-H 198.18.0.2 -t TCP_CRR -i 3,30 -T 0,1 -D 1 -- -F -L 198.18.1.1 -P 5000,6000 -s 64K,128K"))
	if err != nil {
		t.Fatal(err)
	}
	src := c.Script()
	for _, want := range []string{`host = "198.18.0.2"`, `server = "netserver"`, "fastopen = True", `local = "198.18.1.1"`,
		"local_port = 5000", "data_port = 6000", "send_buffer = 65536", "recv_buffer = 131072", "cpu = 0", "remote_cpu = 1",
		"interval = 1", "confidence(test, level = 99, width = 5, min = 30, max = 30)"} {
		if !strings.Contains(src, want) {
			t.Errorf("the script lacks %q:\n%s", want, src)
		}
	}
	if _, err := starlib.FileOptions().Parse("x.star", src, 0); err != nil {
		t.Errorf("the script does not parse: %v", err)
	}
}

// TestConfidenceLoop runs -i/-I through the engine's confidence code: the
// iterations stay within [min, max], the selectors report them, and the
// classic output carries the warning exactly when the target was missed.
func TestConfidenceLoop(t *testing.T) {
	out, errOut, st := run(t, strings.Fields("-t TCP_RR -l 1 -i 4,3 -I 95,0.001 -- -k confidence_level,confidence_interval,confidence_iteration,throughput_confid"), 200*time.Millisecond)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errOut)
	}
	for _, want := range []string{"CONFIDENCE_LEVEL=95\n", "CONFIDENCE_INTERVAL=0.001000\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`CONFIDENCE_ITERATION=[34]\n`).MatchString(out) || !regexp.MustCompile(`THROUGHPUT_CONFID=[0-9]+\.[0-9]{3}\n`).MatchString(out) {
		t.Errorf("iterations or width not reported:\n%s", out)
	}
	if strings.Contains(out, "WARNING") {
		t.Errorf("keyval output carries the warning (netperf's does not):\n%s", out)
	}
	// A target of 0.001 % is missed: the classic form warns.
	out, _, _ = run(t, strings.Fields("-t TCP_RR -l 1 -i 3,3 -I 99,0.001"), 200*time.Millisecond)
	if !strings.Contains(out, " : +/-0.001% @ 99% conf.  : histogram") || !strings.Contains(out, "!!! WARNING\n") {
		t.Errorf("no banner part or warning:\n%s", out)
	}
}

// TestWarningText checks the warning block word for word, with the widths
// reached.
func TestWarningText(t *testing.T) {
	c, err := Parse(strings.Fields("-t TCP_RR -i 10,3 -I 99,5"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	c.Warning(&b, &Figures{ThroughputConfid: 149.326, LocalConfid: -1, RemoteConfid: 0})
	want := "!!! WARNING\n" +
		"!!! Desired confidence was not achieved within the specified iterations.\n" +
		"!!! This implies that there was variability in the test environment that\n" +
		"!!! must be investigated before going further.\n" +
		"!!! Confidence intervals: Throughput      : 149.326%\n" +
		"!!!                       Local CPU util  : 0.000%\n" +
		"!!!                       Remote CPU util : 0.000%\n\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	c.Warning(&b, &Figures{Met: true})
	if b.Len() != 0 {
		t.Errorf("a met target warns: %q", b.String())
	}
}

// TestInterim checks -D: interim lines as netperf writes them, before the
// table.
func TestInterim(t *testing.T) {
	out, errOut, st := run(t, strings.Fields("-t TCP_STREAM -l 1 -D 0.2"), time.Second)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errOut)
	}
	lines := strings.Split(out, "\n")
	n := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "Interim") {
			n++
			if !interimLine.MatchString(l) || i == 0 || strings.HasPrefix(lines[i-1], "Recv") {
				t.Errorf("interim line %q out of form or place", l)
			}
		}
	}
	if n == 0 {
		t.Errorf("no interim lines:\n%s", out)
	}
}

// TestInterimForms checks -D's keyval and CSV forms.
func TestInterimForms(t *testing.T) {
	out, errOut, st := run(t, strings.Fields("-t TCP_RR -l 1 -D 0.2 -P 0 -- -k throughput"), time.Second)
	if st != 0 || !regexp.MustCompile(`(?m)^NETPERF_INTERIM_RESULT\[0\]=[0-9]+\.[0-9]{2}\nNETPERF_UNITS\[0\]=Trans/s\nNETPERF_INTERVAL\[0\]=[0-9.]+\nNETPERF_ENDING\[0\]=[0-9]+\.[0-9]{3}\n`).MatchString(out) {
		t.Errorf("keyval interims: %d %s\n%s", st, errOut, out)
	}
	out, errOut, st = run(t, strings.Fields("-t TCP_STREAM -l 1 -D 0.2 -P 0 -- -o throughput"), time.Second)
	if st != 0 || !regexp.MustCompile(`(?m)^[0-9]+\.[0-9]{2},10\^6bits/s,[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3}$`).MatchString(out) {
		t.Errorf("CSV interims: %d %s\n%s", st, errOut, out)
	}
}

// TestBanner checks the banner's parts netperf prints for the options in
// force (netperf-notes §2.2 transcripts).
func TestBanner(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"-H ::1 -6 -t TCP_RR", "MIGRATED TCP REQUEST/RESPONSE TEST from ::0 (::) port 0 AF_INET6 to ::1 (::1) port 0 AF_INET6 : histogram : interval : demo : first burst 0\n"},
		{"-H 127.0.0.1 -t TCP_CRR -- -L 127.0.0.3 -P 40000,19500", "MIGRATED TCP Connect/Request/Response TEST from 127.0.0.3 () port 40000 AF_INET to 127.0.0.1 () port 19500 AF_INET : histogram : interval : demo\n"},
		{"-t TCP_RR -i 5,3 -I 95,10 -T 0,0 -- -b 8 -D", "MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 AF_INET : +/-5.000% @ 95% conf.  : nodelay : histogram : interval : demo : first burst 8 : cpu bind\n"},
		{"-t TCP_STREAM -i 3 -r", "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 AF_INET : +/-2.500% @ 99% conf.  on result only : histogram : interval : demo\n"},
		{"-H 127.0.0.1 -N -t UDP_STREAM -- -P ,19009", "MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 19009 AF_INET : no control : histogram : interval : demo\n"},
		{"-t TCP_CC", "TCP Connect/Close TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () port 0 AF_INET : histogram : interval : demo\n"},
	} {
		c, err := Parse(strings.Fields(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		c.Banner(&b)
		if b.String() != tc.want {
			t.Errorf("netperf %s:\n got %q\nwant %q", tc.args, b.String(), tc.want)
		}
	}
}

// TestInterrupted: a test cut short (Ctrl-C) reports what it measured,
// as netperf does.
func TestInterrupted(t *testing.T) {
	c, err := Parse(strings.Fields("-t TCP_RR -l 30 -P 0"))
	if err != nil {
		t.Fatal(err)
	}
	env := session.New("test")
	defer env.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var out, errb bytes.Buffer
	if st := c.Run(ctx, env, &out, &errb); st != 0 {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || len(strings.Fields(lines[0])) != 6 {
		t.Errorf("not netperf's table:\n%s", out.String())
	}
}
