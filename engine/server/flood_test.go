package server_test

import (
	"net"
	"net/netip"
	"runtime"
	"sync"
	"testing"
	"time"

	"netscript/engine/proto"
	"netscript/engine/server"
)

// TestDataPortFlood is issue 29's hole 6: 1,000 silent connections to an
// authenticated test's data port, ahead of its own four, made its Start
// fail ("0 of the test's 4 data connections arrived ... 256 others were
// refused"), against the promise that a stranger neither takes a flow's
// place nor delays its start. Now the endpoint takes its whole backlog
// each round and reads each connection's tag at once; a silent one waits
// in a room of 64 where a newcomer pushes out the oldest of the busiest
// network: the test starts, its four flows are served and counted exactly,
// and every stranger is counted as unauthenticated. On 84d21eb Start failed
// (the test fails there).
func TestDataPortFlood(t *testing.T) {
	srv, ap, _ := daemon(t, server.Config{Token: token})
	fd0, g0 := fds(t), runtime.NumGoroutine()
	pc, key, ready := session(t, ap, proto.Setup{Test: "TCP_RR", Request: 1, Response: 1, Flows: 4, DurationNs: int64(time.Second)})
	data := netip.AddrPortFrom(ap.Addr(), uint16(ready.DataPort)).String()
	var strangers []net.Conn
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 1000 {
		wg.Go(func() {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 4, byte(1+i%250))}, Timeout: 5 * time.Second}
			if c, err := d.Dial("tcp", data); err == nil {
				mu.Lock()
				strangers = append(strangers, c)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	defer func() {
		for _, c := range strangers {
			c.Close()
		}
	}()
	var flows []net.Conn
	for range 4 {
		flows = append(flows, greeted(t, "127.0.0.1", data, key))
	}
	res := finish(t, pc, func() {
		for _, c := range flows {
			oneTransaction(t, c)
		}
	})
	t.Logf("%d strangers connected; the server: %d accepts, %d transactions, %d unauthenticated", len(strangers), res.Accepts, res.Transactions, res.Errors["unauthenticated"])
	if res.Accepts != 4 || res.Transactions != 4 {
		t.Fatalf("accepts %d, transactions %d; want 4 and 4", res.Accepts, res.Transactions)
	}
	pc.Close()
	for _, c := range append(strangers, flows...) {
		c.Close()
	}
	settles(t, srv, server.Load{})
	backTo(t, fd0+2, g0) // the session's own connection: the test's end and its Cleanup's
}
