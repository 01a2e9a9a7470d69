package client_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/sock/socktest"
	"netscript/engine/spec"
)

// socktestPorts is n ports that the kernel chose, held on 127.0.0.1 until
// the test ends; a netserver binds a data port on the wildcard address
// beside the holder with SO_REUSEADDR.
func socktestPorts(t *testing.T, n int) []int {
	first := socktest.ReserveRun(t, n, true)
	out := make([]int, n)
	for i := range out {
		out[i] = first + i
	}
	return out
}

// npRunFromUDPPort is npRun for a UDP test whose source port (LocalPort)
// is one the kernel chose; s.LocalPort is the one that ran. The client
// binds it without SO_REUSEADDR, so no holder can keep it from the moment
// the kernel chose it (see socktest): a probe socket learns a free port
// and closes, and when another program took the port meanwhile the
// client's bind fails with EADDRINUSE and the run is tried again with
// another, instead of failing the test.
func npRunFromUDPPort(t *testing.T, s *spec.Spec) *result.Result {
	t.Helper()
	for try := 0; try < 20; try++ {
		c, err := net.ListenPacket("udp4", "0.0.0.0:0") // where the client binds it
		if err != nil {
			t.Fatal(err)
		}
		s.LocalPort = c.LocalAddr().(*net.UDPAddr).Port
		c.Close()
		res, err := client.Run(context.Background(), *s, client.Options{})
		if err != nil && (errors.Is(err, unix.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")) {
			t.Logf("source port %d was taken meanwhile: another (%v)", s.LocalPort, err)
			continue
		}
		if err != nil {
			t.Fatalf("%s from port %d: %v", s.Workload.Name, s.LocalPort, err)
		}
		if res.Remote == nil {
			t.Fatalf("%s: no remote figures", s.Workload.Name)
		}
		return res
	}
	t.Fatalf("%s: every source port the kernel chose was taken before the client bound it, 20 times", s.Workload.Name)
	return nil
}
