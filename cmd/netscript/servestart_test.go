package main

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestEveryListenerOrNone: a daemon whose second --listen, --netperf-listen
// or --data cannot be bound serves nothing: it exits in one line naming the
// flag, and never said it listens anywhere. On 84d21eb the first listener
// was already open and said so (the test fails there), against "every flag
// is checked before the daemon listens".
func TestEveryListenerOrNone(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0") // the port another program listens on
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := l.Addr().String()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "127.0.0.1:0", "--listen", busy}, "netscript serve: listen " + busy + ": "},
		{[]string{"--listen", "127.0.0.1:0", "--netperf-listen", "127.0.0.1:0", "--netperf-listen", busy}, "netscript serve: --netperf-listen: listen for netperf on " + busy},
		{[]string{"--listen", "127.0.0.1:0", "--data", "tcp_rr:" + busy}, "netscript serve: --data tcp_rr:" + busy + ": data endpoint tcp_rr on " + busy},
		{[]string{"--listen", "127.0.0.1:0", "--data", "udp_rr:127.0.0.1:9,request=1,response=2"}, "would answer a spoofed datagram with more than it carried"},
	} {
		r := netscriptEnv(t, 20*time.Second, nil, append([]string{"serve"}, c.args...)...)
		oneLine(t, r, exitUsage, c.want)
		if strings.Contains(r.stderr, "listening on") || strings.Contains(r.stderr, "answering netperf") || strings.Contains(r.stderr, "standing tcp_rr endpoint") {
			t.Errorf("serve %s: it said it served something:\n%s", strings.Join(c.args, " "), r.stderr)
		}
	}
}
