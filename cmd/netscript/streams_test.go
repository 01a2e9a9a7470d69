package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"netscript/engine/sock/socktest"
)

// TestBadOptionsOfIssue3: each bad input of the stream, Fast Open, CPU and
// pacing options gives one line naming the option and the script position.
func TestBadOptionsOfIssue3(t *testing.T) {
	cases := []struct{ code, want string }{
		{"udp_rr(fastopen=True)", "udp_rr: option fastopen does not apply to udp_rr: it applies only to tcp_crr"},
		{"udp_stream(send_size=65508)", "udp_stream: send_size: must be between 1 and 65507 bytes (the most a UDP datagram carries), got 65508"},
		{"tcp_rr(send_buffer=-1)", "tcp_rr: send_buffer: must not be negative, got -1"},
		{"tcp_stream(remote_recv_buffer=-1)", "tcp_stream: remote_recv_buffer: must not be negative, got -1"},
		{"tcp_rr(cpu=9999)", "tcp_rr: cpu: cpu 9999 does not exist: this machine has CPUs"},
		{"tcp_rr(remote_cpu=9999, duration=1)", "tcp_rr: remote_cpu: server: cpu 9999 does not exist"},
		{"tcp_rr(rate=0)", "tcp_rr: rate: must be positive, got 0"},
		{"tcp_rr(duration=1, interval=5)", "tcp_rr: interval: 5s is longer than the test (duration 1s)"},
		{"tcp_crr(control=False)", "tcp_crr: control: False needs data_port"},
	}
	for _, c := range cases {
		r := netscript(t, 20*time.Second, "-c", "x = 1\n"+c.code)
		oneLine(t, r, 1, "<command-line>:2:", c.want)
	}
}

// TestServeData: `serve --data` starts standing endpoints that a script
// reaches with control=False; bad --data values are usage errors.
func TestServeData(t *testing.T) {
	// The standing endpoints' ports are held by the test (the daemon
	// binds them with SO_REUSEADDR beside the holders); the daemon says
	// when it listens and when each endpoint is open.
	crr, stream := socktest.Reserve(t, false), socktest.Reserve(t, false)
	d := watchDaemon(t, exec.Command(bin, "serve", "--listen", "127.0.0.1:0",
		"--data", fmt.Sprintf("tcp_crr:127.0.0.1:%d,request=16,response=32", crr), "--data", fmt.Sprintf("tcp_stream:127.0.0.1:%d", stream)), 2)
	code := fmt.Sprintf(`r = tcp_crr(control=False, host="127.0.0.1", data_port=%d, request=16, response=32, transactions=20)
print(r.transactions > 0, r.remote, r.config.control, r.bytes_received >= 32 * r.transactions)
r = tcp_stream(control=False, data_port=%d, bytes="1M")
print(r.throughput > 0, r.remote_address, r.udp, r.notes[0][:21])`, crr, stream)
	r := netscript(t, 30*time.Second, "-c", code)
	want := "True None False True\nTrue 127.0.0.1 None no control connection\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("got %+v, want stdout %q\nserver:\n%s", r, want, d.stderr.String())
	}

	for _, c := range []struct{ arg, want string }{
		{"tcp_rr", "--data tcp_rr: want WORKLOAD:PORT or WORKLOAD:ADDR:PORT"},
		{"sctp_rr:1234", `unknown workload "sctp_rr"`},
		{"tcp_rr:70000", "port 70000 out of range 1-65535"},
		{"tcp_rr:1234,request=x", `request: want a size in bytes, got "x"`},
		{"tcp_rr:1234,burst=3", `unknown setting "burst"`},
		{"udp_rr:1234,response=70000", "message sizes must be between 1 and 65507 bytes"},
	} {
		r := netscript(t, 10*time.Second, "serve", "--listen", "127.0.0.1:0", "--data", c.arg)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("--data %s: exit %d, stderr %q; want %q", c.arg, r.code, r.stderr, c.want)
		}
	}
}

// TestInterimOnTerminal: with stderr a terminal, interim results are shown
// live, one line for each sample the result holds, as netperf's demo mode
// prints them. (How many samples a loaded machine fits in the 4 intervals
// is its own business: at most one per interval and the end.)
func TestInterimOnTerminal(t *testing.T) {
	p := startOnPTY(t, []string{"-c", "r = tcp_stream(duration=1, interval=0.25)\nprint('samples', len(r.interim), 'end')"})
	shown := p.expectRE(regexp.MustCompile(`samples [0-9]+ end`), 30*time.Second)
	var samples int
	fmt.Sscanf(shown[strings.LastIndex(shown, "samples "):], "samples %d", &samples)
	if n := strings.Count(shown, "Interim result: "); n != samples || n < 1 || n > 5 {
		t.Errorf("%d interim lines shown for %d samples of 4 intervals:\n%q", n, samples, shown)
	}
	// Each line says how long its interval really was (about 0.25 s; later
	// on a loaded machine).
	if !regexp.MustCompile(` 10\^6bits/s over [0-9]\.[0-9]+ seconds`).MatchString(shown) || !strings.Contains(shown, "(TCP_STREAM)") {
		t.Errorf("interim lines:\n%q", shown)
	}
	p.cmd.Wait()
}
