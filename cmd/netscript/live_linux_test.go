package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"netscript/engine/sock/socktest"
)

// measuringAny is the live progress line of a test that is measuring and
// has moved something: transactions or bytes.
var measuringAny = regexp.MustCompile(` s of [0-9.]+ s  [1-9][0-9]*\.[0-9]{2} (Trans/s|10\^6bits/s)`)

// liveCause is what a client says when its peer stopped: the data path's
// stall, or the server's silence on the control connection.
var liveCause = regexp.MustCompile(`no progress on the data connection for [0-9.]+ s \(since [0-9.]+ s into the test\)|` +
	`the server sent nothing on the control connection for [0-9.]+ s \(since [0-9.]+ s into the test\): stopped or unreachable\?`)

// TestDaemonStoppedMidTest: the daemon is SIGSTOPped in the middle of a 60
// s test: it neither closes nor answers. The client notices within a few
// seconds (the default liveness bound is 3 s), not after the rest of the
// test plus the wait for Results, and exits 1 with one line that gives the
// cause and what was measured before it, bytes for a stream.
func TestDaemonStoppedMidTest(t *testing.T) {
	for _, tc := range []struct{ workload, partial string }{
		{"tcp_stream", " bytes sent and "},
		{"tcp_rr", " transactions in "},
	} {
		t.Run(tc.workload, func(t *testing.T) {
			d := startDaemon(t, nil)
			p := startOnPTY(t, []string{"-c", fmt.Sprintf("%s(host='127.0.0.1', port=%d, duration=60)", tc.workload, d.port)})
			p.expectRE(measuringAny, 60*time.Second)
			if err := d.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			defer d.cmd.Process.Signal(syscall.SIGCONT)
			stopped := time.Now()
			out, err := p.wait(50 * time.Second) // a hang guard: the test is 60 s long
			r := ran{stderr: visible(out), took: time.Since(stopped)}
			if ee, ok := err.(*exec.ExitError); ok {
				r.code = ee.ExitCode()
			}
			t.Logf("the client stopped %v after the daemon did: %s", r.took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
			oneLine(t, r, 1, tc.workload+": ", "measured before that: ", tc.partial)
			if !liveCause.MatchString(r.stderr) {
				t.Errorf("the cause is not the stall or the silence:\n%s", r.stderr)
			}
			// The bound is 3 s; before liveness the client took the rest
			// of the test and 10 s more. Lots of slack for a loaded machine.
			if r.took > 25*time.Second {
				t.Errorf("the client noticed %v after the stop", r.took)
			}
		})
	}
}

// TestStandingEndpointStoppedMidTest: without a control connection there
// are no heartbeats, but the stall of the data path still ends the test:
// a daemon serving a standing tcp_rr endpoint is SIGSTOPped mid-test.
func TestStandingEndpointStoppedMidTest(t *testing.T) {
	port := socktest.Reserve(t, false)
	d := watchDaemon(t, exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data", fmt.Sprintf("tcp_rr:%d", port)), 1)
	p := startOnPTY(t, []string{"-c", fmt.Sprintf("tcp_rr(control=False, data_port=%d, duration=60)", port)})
	p.expectRE(measuringAny, 60*time.Second)
	if err := d.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer d.cmd.Process.Signal(syscall.SIGCONT)
	stopped := time.Now()
	out, err := p.wait(50 * time.Second)
	r := ran{stderr: visible(out), took: time.Since(stopped)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	}
	t.Logf("the client stopped %v after the daemon did: %s", r.took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
	oneLine(t, r, 1, "tcp_rr: no progress on the data connection for ", "measured before that: ", " transactions in ")
	if r.took > 25*time.Second {
		t.Errorf("the client noticed %v after the stop", r.took)
	}
}

// TestClientStoppedMidTest: a client process SIGSTOPped in the middle of a
// 60 s test sends no more heartbeats; the daemon (--liveness 1s) ends and
// frees the test and says why in its log, long before the test's end. The
// client, continued, exits 1 too.
func TestClientStoppedMidTest(t *testing.T) {
	d := startDaemon(t, nil, "--liveness", "1s")
	p := startOnPTY(t, []string{"-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, duration=60)", d.port)})
	p.expectRE(measuringAny, 60*time.Second)
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	const said = "the client sent nothing on the control connection for "
	waitFor(t, 30*time.Second, "the daemon to end the silent client's test", func() bool { return strings.Contains(d.stderr.String(), said) })
	t.Logf("the daemon ended the test %v after the client stopped", time.Since(stopped).Round(time.Millisecond))
	if !strings.Contains(d.stderr.String(), "netscript serve --liveness") {
		t.Errorf("the daemon's log does not name the flag:\n%s", d.stderr)
	}
	p.cmd.Process.Signal(syscall.SIGCONT)
	out, err := p.wait(30 * time.Second)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("the client exited with %v:\n%s", err, visible(out))
	}
	// Continued, the client reads what the daemon told it first, rather
	// than taking its own pause for the server's silence.
	if !strings.Contains(visible(out), "server: "+said) {
		t.Errorf("the client does not say why the daemon ended its test:\n%s", visible(out))
	}
}

// TestClientDaemonStoppedMidTest: the daemon that runs a test's client
// side for the script (client=) is SIGSTOPped mid-test. The script asks it
// for a sign of life while the test runs and exits 1 within a few seconds,
// saying the daemon went silent, not after the test's 60 s and the waits
// beyond them.
func TestClientDaemonStoppedMidTest(t *testing.T) {
	a := startDaemon(t, nil, "--allow-client")
	b := startDaemon(t, nil)
	cmd := exec.Command(bin, "-q", "-c", fmt.Sprintf("tcp_rr(host='127.0.0.1', port=%d, client='127.0.0.1:%d', duration=60)", b.port, a.port))
	cmd.Env = cleanEnv()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer cmd.Process.Kill()
	time.Sleep(2 * time.Second) // under way (a loaded machine: maybe still setting up; either way A stops)
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer a.cmd.Process.Signal(syscall.SIGCONT)
	stopped := time.Now()
	var err error
	select {
	case err = <-done:
	case <-time.After(50 * time.Second): // a hang guard: the test is 60 s long
		t.Fatalf("the script still runs 50 s after its client daemon stopped:\n%s", stderr.String())
	}
	took := time.Since(stopped)
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v:\n%s", err, stderr.String())
	}
	t.Logf("the script stopped %v after its client daemon did: %s", took.Round(time.Millisecond), strings.TrimSpace(stderr.String()))
	if !strings.Contains(stderr.String(), "the daemon answered nothing on the control connection for") {
		t.Errorf("the cause is not the daemon's silence:\n%s", stderr.String())
	}
	if took > 25*time.Second {
		t.Errorf("the script noticed %v after the stop", took)
	}
}
