package client_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// TestUnixRemoteHost: a test over UNIX domain sockets toward a host that
// is not this machine is refused with one line naming host, before any
// packet is sent.
func TestUnixRemoteHost(t *testing.T) {
	for _, w := range []*spec.Workload{spec.UnixRR, spec.UnixgramStream} {
		s := spec.Default(w)
		s.Host, s.Duration = "198.18.0.2", time.Second
		_, err := client.Run(context.Background(), s, client.Options{})
		var oe *spec.OptionError
		if !errors.As(err, &oe) || oe.Option != "host" || !strings.Contains(err.Error(), "198.18.0.2 is not this machine: "+w.Name+" runs over UNIX domain sockets") ||
			strings.Contains(err.Error(), "\n") {
			t.Errorf("%s toward 198.18.0.2: %v", w.Name, err)
		}
	}
}

// TestMPTCPEveryTCPWorkload: every TCP workload runs with
// protocol="mptcp" (on loopback, one subflow each), with a thread per flow
// and multiplexed, and those with a connection per flow say so in
// result.mptcp.
func TestMPTCPEveryTCPWorkload(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/net/mptcp/enabled"); err != nil || strings.TrimSpace(string(b)) != "1" {
		t.Skip("this kernel has no MPTCP, or it is turned off")
	}
	th := &workload.Threads{}
	ap := startServer(t, th)
	for _, w := range spec.Workloads() {
		if !w.Accepts(spec.OptProtocol) {
			continue
		}
		for _, flows := range []int{1, 8} {
			if flows > 1 && !w.MuxClient && !w.MuxServer {
				continue
			}
			s := spec.Default(w)
			s.Host, s.Port, s.Duration, s.Flows, s.Protocol = ap.Addr().String(), int(ap.Port()), 300*time.Millisecond, flows, spec.ProtocolMPTCP
			r, err := client.Run(context.Background(), s, client.Options{Threads: th})
			if err != nil {
				t.Fatalf("%s flows=%d: %v", w.Name, flows, err)
			}
			if r.Config.Protocol != "mptcp" {
				t.Errorf("%s: config.protocol %q", w.Name, r.Config.Protocol)
			}
			if w.PerTransaction != (r.MPTCP == nil) {
				t.Errorf("%s flows=%d: mptcp %+v", w.Name, flows, r.MPTCP)
			} else if r.MPTCP != nil && (r.MPTCP.Subflows < r.MPTCP.Connections || r.MPTCP.Fallbacks != 0) {
				t.Errorf("%s flows=%d: mptcp %+v", w.Name, flows, r.MPTCP)
			}
		}
	}
}
