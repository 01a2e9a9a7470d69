package progress

import (
	"testing"
	"time"

	"netscript/engine/client"
)

// TestRetransmitsShown: a TCP test's status line and interim lines show
// the retransmits (and the interim lines the cwnd); a test without them
// shows neither.
func TestRetransmitsShown(t *testing.T) {
	n, cwnd := uint64(7), uint64(42)
	for _, c := range []struct {
		name string
		got  string
		want string
	}{
		{"status line", progressLine(client.Progress{Test: "TCP_STREAM", Elapsed: time.Second, Total: 2 * time.Second, Throughput: 1,
			Units: "10^6bits/s", Retransmits: &n}, ""), "TCP_STREAM  1.0 s of 2.0 s  1.00 10^6bits/s  retr 7"},
		{"status line, UDP", progressLine(client.Progress{Test: "UDP_STREAM", Elapsed: time.Second, Total: 2 * time.Second, Throughput: 1,
			Units: "10^6bits/s"}, ""), "UDP_STREAM  1.0 s of 2.0 s  1.00 10^6bits/s"},
		{"interim line", InterimLine(client.Interim{Test: "TCP_STREAM", T: 0.4, Interval: 0.2, Throughput: 1, Units: "10^6bits/s",
			Retransmits: &n, Cwnd: &cwnd}), "Interim result: 1.00 10^6bits/s over 0.200 seconds ending at 0.400 s, retr 7 cwnd 42 (TCP_STREAM)"},
		{"interim line, UDP", InterimLine(client.Interim{Test: "UDP_STREAM", T: 0.4, Interval: 0.2, Throughput: 1, Units: "10^6bits/s"}),
			"Interim result: 1.00 10^6bits/s over 0.200 seconds ending at 0.400 s (UDP_STREAM)"},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n got  %q\n want %q", c.name, c.got, c.want)
		}
	}
}
