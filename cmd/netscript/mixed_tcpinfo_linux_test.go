package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMixedVersionsTCPInfo: the server's TCP_INFO is asked for, so a
// daemon of a release before it still serves this release's clients: it
// refuses the Setup that asks (its log says so), the client runs the test
// again without asking, and the result has the client's own tcp with
// remote.tcp None and a note saying why. A knob it cannot set is refused by
// name, before any traffic.
func TestMixedVersionsTCPInfo(t *testing.T) {
	old := oldNetscript(t)
	oldDaemon := watchDaemon(t, exec.Command(old, "serve", "--listen", "127.0.0.1:0"), 0)
	code := fmt.Sprintf("r = tcp_stream(host='127.0.0.1', port=%d, duration=0.5)\n"+
		"print(r.tcp.rtt > 0, r.remote.tcp == None, [n for n in r.notes if 'TCP_INFO' in n] != [])", oldDaemon.port)
	r := netscriptEnv(t, 60*time.Second, nil, "-c", code)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "True True True" {
		t.Errorf("new client, old daemon: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// tcp_crr's own tcp_info=True asks the old daemon for nothing else.
	code = fmt.Sprintf("r = tcp_crr(host='127.0.0.1', port=%d, duration=0.5, tcp_info=True)\nprint(r.tcp.connections > 0, r.remote.tcp == None)", oldDaemon.port)
	if r := netscriptEnv(t, 60*time.Second, nil, "-c", code); r.code != 0 || strings.TrimSpace(r.stdout) != "True True" {
		t.Errorf("new client, old daemon: tcp_crr tcp_info=True: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(oldDaemon.stderr.String(), `unknown field "tcp_info"`) {
		t.Errorf("the old daemon was never asked for its TCP_INFO:\n%s", oldDaemon.stderr)
	}
	r = netscriptEnv(t, 60*time.Second, nil, "-c", fmt.Sprintf("tcp_stream(host='127.0.0.1', port=%d, duration=0.5, congestion='reno')", oldDaemon.port))
	if r.code == 0 || !strings.Contains(r.stderr, `unknown field \"knobs\"`) && !strings.Contains(r.stderr, `unknown field "knobs"`) {
		t.Errorf("a knob with an old daemon: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
