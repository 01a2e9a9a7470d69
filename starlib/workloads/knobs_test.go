package workloads_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/internal/startest"
	"netscript/starlib"
)

// TestBadKnobs: a knob on a workload it does not apply to, a value out of
// range or a kernel's refusal is one line naming the option (and, for a
// refusal, the end and the errno), before the measured interval.
func TestBadKnobs(t *testing.T) {
	cases := []struct{ code, want string }{
		{`tcp_rr(zerocopy=True)`, "tcp_rr: zerocopy: does not apply to tcp_rr: it applies only to stream tests (MSG_ZEROCOPY on the sending end)"},
		{`tcp_crr(quickack=True)`, "tcp_crr: quickack: does not apply to tcp_crr: it applies only to tcp_rr (TCP_QUICKACK, re-armed after each receive): a connection per transaction starts in quick-ack mode"},
		{`tcp_cc(quickack=True)`, "tcp_cc: quickack: does not apply to tcp_cc"},
		{`tcp_maerts(zerocopy=True, flows=5)`, "tcp_maerts: zerocopy: not with 5 flows: the sender of more than 4 flows runs them multiplexed, without MSG_ZEROCOPY"},
		{`udp_stream(congestion="cubic")`, "udp_stream: congestion: does not apply to udp_stream: it applies only to TCP tests: UDP has no congestion control"},
		{`udp_rr(mss=1000)`, "udp_rr: mss: does not apply to udp_rr"},
		{`tcp_rr(cork=True)`, "tcp_rr: cork: does not apply to tcp_rr: it applies only to tcp_stream and tcp_maerts"},
		{`tcp_stream(quickack=True)`, "tcp_stream: quickack: does not apply to tcp_stream"},
		{`tcp_rr(tcp_info=True)`, "tcp_rr: tcp_info: does not apply to tcp_rr: it applies only to tcp_crr and tcp_cc"},
		{`tcp_rr(tos=256)`, "tcp_rr: tos: want a byte 0-255"},
		{`tcp_rr(tos=-1)`, "tcp_rr: tos: want a byte 0-255 (a DSCP value d is d<<2), got -1"},
		{`tcp_rr(mss=10)`, "tcp_rr: mss: want 88-65535 bytes, got 10"},
		{`tcp_rr(mss=0)`, "tcp_rr: mss: must be positive, got 0"},
		{`tcp_rr(busy_poll=-5)`, "tcp_rr: busy_poll: want 1-1000000 µs, got -5"},
		{`tcp_stream(notsent_lowat=-1)`, "tcp_stream: notsent_lowat: want 1-1073741824 bytes, got -1"},
		{`tcp_stream(max_pacing_rate="fast")`, `tcp_stream: max_pacing_rate: want bits/s as a number or with k, M, G or T ("100M")`},
		{`tcp_stream(max_pacing_rate=-1)`, "tcp_stream: max_pacing_rate: "},
		{`tcp_stream(max_pacing_rate="9999999T")`, "tcp_stream: max_pacing_rate: want bits/s"},
		{`tcp_stream(congestion="no such")`, `tcp_stream: congestion: want an algorithm's name such as "cubic"`},
		{`tcp_stream(congestion=3)`, "tcp_stream: congestion: want a string"},
		{`tcp_stream(cork=1)`, "tcp_stream: cork: want True or False, got int"},
		{`tcp_stream(control=False, data_port=1, congestion="reno")`, "tcp_stream: congestion: needs a control connection to reach the server"},
		{`tcp_stream(server="netserver", host="127.0.0.1", congestion="reno")`, `server="netserver": option congestion= is not supported by netserver`},
		// The kernel's refusal, named with the end and the errno.
		// (The server sets its knobs at set-up, before the client opens
		// its data sockets, so on one machine the server refuses first.)
		{`tcp_stream(duration=0.2, congestion="nosuch")`, "tcp_stream: congestion: the server's kernel refused it: no such file or directory (ENOENT); it offers "},
		{`tcp_crr(duration=0.2, congestion="nosuch")`, "tcp_crr: congestion: the server's kernel refused it"},
		// The same with more than 4 flows, which run multiplexed.
		{`tcp_crr(duration=0.2, flows=8, congestion="nosuch", tcp_info=True)`, "tcp_crr: congestion: the server's kernel refused it: no such file or directory (ENOENT); it offers "},
		{`tcp_cc(duration=0.2, flows=8, congestion="nosuch")`, "tcp_cc: congestion: the server's kernel refused it: no such file or directory (ENOENT)"},
		{`tcp_rr(duration=0.2, flows=8, congestion="nosuch", quickack=True)`, "tcp_rr: congestion: the server's kernel refused it: no such file or directory (ENOENT)"},
		{`tcp_crr(flows=8, zerocopy=True)`, "tcp_crr: zerocopy: does not apply to tcp_crr"},
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
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s:\n got  %s\n want one line with %s", c.code, msg, c.want)
		}
	}
}
