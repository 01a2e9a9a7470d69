package workloads_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/internal/startest"
	"netscript/starlib"
)

// TestBadOptions runs snippets that must fail, and checks the error names
// the builtin, the option and the cause.
func TestBadOptions(t *testing.T) {
	cases := []struct{ code, want string }{
		{`tcp_rr(requets=1)`, "tcp_rr: unknown option requets (did you mean request?)"},
		{`tcp_rr(request=0)`, "tcp_rr: request: must be at least 1 byte, got 0"},
		{`tcp_rr(response=-5)`, "tcp_rr: response: must be at least 1 byte, got -5"},
		{`udp_rr(request=70000)`, "udp_rr: request: must be between 1 and 65507 bytes"},
		{`tcp_rr(burst=-1)`, "tcp_rr: burst: must be between 0 and 65536, got -1"},
		{`tcp_crr(burst=2)`, "tcp_crr: option burst does not apply to tcp_crr"},
		{`tcp_rr(duration="soon")`, `tcp_rr: duration: "soon" is not a duration`},
		{`tcp_rr(duration=0)`, "tcp_rr: duration: must be positive"},
		{`tcp_rr(duration=[1])`, "tcp_rr: duration: want seconds"},
		{`tcp_rr(request="12Q")`, `tcp_rr: request: "12Q" is not a size in bytes`},
		{`tcp_rr(nodelay=1)`, "tcp_rr: nodelay: want True or False, got int"},
		{`tcp_rr(family="ipx")`, `tcp_rr: family: unknown family "ipx"`},
		{`tcp_rr(port=70000)`, "tcp_rr: port: must be between 1 and 65535, got 70000"},
		{`tcp_rr(1)`, "tcp_rr: takes keyword options only"},
		{`tcp_rr(duration=1, duration=2)`, `keyword argument "duration" is repeated`},
		{`udp_rr(timeout=0)`, "udp_rr: timeout: must be positive"},
		{`tcp_rr(host="127.0.0.1", family="inet6")`, "tcp_rr: host: address 127.0.0.1 is not IPv6 but family is inet6"},
		{`tcp_rr(local="not-an-ip", transactions=1)`, "tcp_rr: local: not an IP address: not-an-ip"},
		{`tcp_rr(local="198.18.0.99", transactions=1)`, "tcp_rr: local: bind 198.18.0.99:0: cannot assign requested address"},
		{`tcp_crr(local="198.18.0.99", transactions=1)`, "tcp_crr: local: bind 198.18.0.99:0: cannot assign requested address"},
		{`udp_rr(local="::1", transactions=1)`, "udp_rr: local: address ::1 is not of the server's family"},
		// The options of issue 3.
		{`udp_rr(fastopen=True)`, "udp_rr: option fastopen does not apply to udp_rr: it applies only to tcp_crr, which opens a connection per transaction"},
		{`tcp_rr(fastopen=True)`, "tcp_rr: option fastopen does not apply to tcp_rr: it applies only to tcp_crr"},
		{`tcp_stream(fastopen=True)`, "tcp_stream: option fastopen does not apply to tcp_stream"},
		{`tcp_crr(fastopen=1)`, "tcp_crr: fastopen: want True or False, got int"},
		{`udp_stream(send_size=70000)`, "udp_stream: send_size: must be between 1 and 65507 bytes (the most a UDP datagram carries), got 70000"},
		{`udp_stream(send_size="64K")`, "udp_stream: send_size: must be between 1 and 65507 bytes"},
		{`tcp_stream(send_size=0)`, "tcp_stream: send_size: must be at least 1 byte, got 0"},
		{`udp_stream(send_size=1000, recv_size=100)`, "udp_stream: recv_size: 100 is shorter than send_size 1000"},
		{`tcp_rr(send_size=100)`, "tcp_rr: option send_size does not apply to tcp_rr: it applies only to tcp_stream, tcp_maerts and udp_stream (stream tests)"},
		{`tcp_rr(bytes=100)`, "tcp_rr: option bytes does not apply to tcp_rr: it applies only to tcp_stream, tcp_maerts and udp_stream (stream tests)"},
		{`tcp_stream(bytes="lots")`, `tcp_stream: bytes: "lots" is not a byte count`},
		{`tcp_stream(transactions=10)`, "tcp_stream: option transactions does not apply to tcp_stream"},
		{`tcp_rr(send_buffer=-1)`, "tcp_rr: send_buffer: must not be negative, got -1"},
		{`tcp_stream(recv_buffer=-1)`, "tcp_stream: recv_buffer: must not be negative, got -1"},
		{`tcp_crr(remote_send_buffer=-8)`, "tcp_crr: remote_send_buffer: must not be negative, got -8"},
		{`udp_stream(remote_recv_buffer=-1)`, "udp_stream: remote_recv_buffer: must not be negative, got -1"},
		{`tcp_rr(send_buffer=2147483647)`, "tcp_rr: send_buffer: must be at most 1073741824 bytes"},
		{`tcp_rr(cpu=4096)`, "tcp_rr: cpu: cpu 4096 does not exist: this machine has CPUs"},
		{`tcp_rr(cpu=-1)`, "tcp_rr: cpu: must not be negative, got -1"},
		{`tcp_rr(remote_cpu=4096, duration=0.1)`, "tcp_rr: remote_cpu: server: cpu 4096 does not exist: this machine has CPUs"},
		{`tcp_rr(rate=0)`, "tcp_rr: rate: must be positive, got 0"},
		{`udp_stream(rate=-5)`, "udp_stream: rate: must be positive, got -5"},
		{`tcp_rr(rate="fast")`, "tcp_rr: rate: want a number per second, got string"},
		{`tcp_rr(duration=1, interval=2)`, "tcp_rr: interval: 2s is longer than the test (duration 1s)"},
		{`tcp_stream(interval=0)`, "tcp_stream: interval: must be positive"},
		{`tcp_rr(duration=10, interval="1us")`, "tcp_rr: interval: must be at least 1ms"},
		{`tcp_rr(control=False)`, "tcp_rr: control: False needs data_port"},
		{`udp_stream(control=False, host="127.0.0.1")`, "udp_stream: control: False needs data_port"},
		{`tcp_rr(control=False, data_port=9, remote_cpu=0)`, "tcp_rr: remote_cpu: needs a control connection"},
		{`tcp_maerts(control=False, data_port=9, send_size=100)`, "tcp_maerts: send_size: needs a control connection"},
		// The options of issue 6: flows, per-flow lists, the port walk,
		// client=, parallel() and aggregate().
		{`tcp_rr(flows=3, local=["127.0.0.1"])`, "tcp_rr: local: a list of 1 addresses for flows=3: give one per flow"},
		{`tcp_rr(local=["127.0.0.1", "127.0.0.2"])`, "tcp_rr: local: a list of 2 addresses for flows=1: give one per flow"},
		{`udp_rr(flows=2, local_port=[5000])`, "udp_rr: local_port: a list of 1 ports for flows=2"},
		{`tcp_stream(flows=2, data_port=[5000, 0])`, "tcp_stream: data_port: [1]: must be between 1 and 65535, got 0"},
		{`tcp_rr(flows=2, local=[1, 2])`, "tcp_rr: local: [0]: want a string, got int"},
		{`tcp_rr(flows=2, local=[])`, "tcp_rr: local: an empty list: give an address per flow"},
		{`tcp_rr(flows=0)`, "tcp_rr: flows: must be at least 1, got 0"},
		{`tcp_crr(flows=5000)`, "tcp_crr: flows: must be at most 4096, got 5000"},
		{`udp_stream(flows=300)`, "udp_stream: flows: must be at most 256 for udp_stream, which runs a thread per flow on each end"},
		{`tcp_rr(flows=300, interval=1)`, "tcp_rr: flows: must be at most 256 with interval"},
		{`tcp_rr(flows="many")`, "tcp_rr: flows: want an int, got string"},
		{`tcp_crr(flows=2, local_port=5000)`, "tcp_crr: local_port: 2 flows cannot share source port 5000; give a list with one port per flow, or local_ports (lo, hi) to walk a range"},
		{`tcp_rr(local_ports=(5000, 5010))`, "tcp_rr: option local_ports does not apply to tcp_rr: it applies only to tcp_crr"},
		{`tcp_crr(local_ports=5000)`, "tcp_crr: local_ports: want (lo, hi), two ports, got int"},
		{`tcp_crr(local_ports=(6000, 5000))`, "tcp_crr: local_ports: want (lo, hi) with 1 <= lo <= hi <= 65535, got (6000, 5000)"},
		{`tcp_crr(flows=4, local_ports=(5000, 5001))`, "tcp_crr: local_ports: (5000, 5001) holds 2 ports for 4 flows"},
		{`tcp_rr(flows=3, local=["127.0.0.1", "198.18.0.99", "127.0.0.1"], duration=0.1)`,
			"tcp_rr: flow 1 of 3: local: bind 198.18.0.99:0: cannot assign requested address"},
		{`tcp_rr(client="127.0.0.1:1")`, "tcp_rr: client: needs host"},
		{`tcp_rr(client="127.0.0.1:1", host="127.0.0.1", duration=0.1)`, "tcp_rr: client: dial 127.0.0.1:1: connection refused"},
		{`parallel(5)`, "parallel: fns must be a list of functions of no arguments"},
		{`parallel([lambda: 1, 2])`, "parallel: fns[1] is a int, not a function"},
		{`parallel([lambda: parallel([])])`, "parallel: branch 0: parallel: called inside a branch of another parallel()"},
		{`parallel([lambda: tcp_rr(duration=0.2), lambda: tcp_rr(request=0)])`, "parallel: branch 1: tcp_rr: request: must be at least 1 byte, got 0"},
		{`parallel([lambda: fail("boom")])`, "parallel: branch 0: fail: boom"},
		{`aggregate([tcp_rr(duration=0.1), udp_rr(duration=0.1)])`, "aggregate: results[1] is UDP_RR and results[0] is TCP_RR: aggregate combines results of one kind"},
		{`aggregate([1])`, "aggregate: results[0] is a int, not a result"},
		{`aggregate([])`, "aggregate: results is empty"},
	}
	for _, c := range cases {
		th, _ := startest.NewThread(t)
		_, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "bad.star", c.code, starlib.Predeclared())
		if err == nil {
			t.Errorf("%s: no error, want %q", c.code, c.want)
			continue
		}
		msg := err.Error()
		if ee, ok := err.(*starlark.EvalError); ok {
			msg = ee.Msg
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s:\n got  %s\n want %s", c.code, msg, c.want)
		}
	}
}
