package server_test

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"netscript/engine/client"
	"netscript/engine/server"
	"netscript/engine/spec"
)

// holdSilent keeps a silent control connection open to addr from each of
// srcs, dialling again whenever the server ends one, until the returned
// function is called; opened counts the connections made.
func holdSilent(addr string, srcs []net.IP, opened *atomic.Int64) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for _, src := range srcs {
		wg.Go(func() {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: src}, Timeout: time.Second}
			for {
				select {
				case <-quit:
					return
				default:
				}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				opened.Add(1)
				gone := make(chan struct{})
				go func() { c.Read(make([]byte, 512)); close(gone) }() // until the server ends it
				select {
				case <-quit:
					c.Close()
					<-gone
					return
				case <-gone:
					c.Close()
				}
				time.Sleep(20 * time.Millisecond) // this process also runs the daemon and its good client
			}
		})
	}
	return sync.OnceFunc(func() { close(quit); wg.Wait() })
}

// TestStrangersCannotTakeSetupSlots is issue 29's hole 5: the per-client
// cap on control connections in set-up counted exact addresses, so 16
// loopback addresses of one host holding 16 silent connections each, and
// reopening them as the daemon dropped them, held every pending slot of a
// daemon with a token, and kept 0 of 15 token holders' tests from running
// in 30 s. Now the cap counts networks (/24, /64), and a connection that
// has not proved the token gives its place to one that comes when there is
// none: the same host, and a second spread over 32 networks with 8 each
// (more than --max-pending in all), do not keep 15 token holders' tests
// out. On 84d21eb the test fails ("busy" for the token holders).
func TestStrangersCannotTakeSetupSlots(t *testing.T) {
	srv, ap, th := daemon(t, server.Config{Token: token, HandshakeTimeout: 5 * time.Second})
	fd0, g0 := fds(t), runtime.NumGoroutine()
	var one, spread []net.IP
	for i := range 16 {
		for range 16 {
			one = append(one, net.IPv4(127, 0, 1, byte(1+i)))
		}
	}
	for i := range 32 {
		for range 8 {
			spread = append(spread, net.IPv4(127, 1, byte(i), 1))
		}
	}
	var opened atomic.Int64
	stop := holdSilent(ap.String(), append(one, spread...), &opened)
	defer stop()
	// Until the attackers hold every slot they can.
	deadline := time.Now().Add(20 * time.Second)
	for srv.Load().Pending < srv.Limits().MaxPending && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("pending slots held: %d of %d", srv.Load().Pending, srv.Limits().MaxPending)
	t0 := time.Now()
	ran := 0
	var errs []error
	for range 15 {
		s := spec.Default(spec.TCPRR)
		// A second each: the attackers share this process and its CPUs,
		// so a shorter test on a loaded machine may complete nothing.
		s.Host, s.Port, s.Duration = ap.Addr().String(), int(ap.Port()), time.Second
		r, err := client.Run(context.Background(), s, client.Options{Threads: th, Token: token})
		if err == nil && r.Transactions > 0 {
			ran++
		} else {
			errs = append(errs, err)
		}
		if time.Since(t0) > 2*time.Minute {
			break
		}
	}
	stop()
	t.Logf("%d of 15 token holders' tests ran in %v while strangers opened %d connections; refusals: %v",
		ran, time.Since(t0).Round(time.Millisecond), opened.Load(), errs)
	if ran != 15 {
		t.Errorf("%d of 15 token holders' tests ran: %v", ran, fmt.Sprint(errs))
	}
	settles(t, srv, server.Load{})
	backTo(t, fd0, g0)
}
