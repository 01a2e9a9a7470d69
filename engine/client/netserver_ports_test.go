package client_test

import (
	"net"
	"testing"

	"netscript/engine/sock/socktest"
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

// freeUDPPort is a UDP port on 127.0.0.1 the kernel chose, free when it
// returns (for a source port the client binds without SO_REUSEADDR).
func freeUDPPort(t *testing.T) int {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}
