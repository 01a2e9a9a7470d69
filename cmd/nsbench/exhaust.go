package main

import (
	"fmt"
	"net"
	"strconv"
	"syscall"
	"time"

	"netscript/engine/proto"
	"netscript/engine/proto/manual"
)

// The thread-exhaustion attempt of `make bench-hostile`: what once killed
// the daemon (21 tests of TCP_STREAM with 256 flows from one address,
// every data connection opened, Start never sent: 5,376 connections at two
// threads each), replayed against a daemon that charges each test to its
// thread budget at Setup.
const exhaustTests, exhaustFlows = 21, 256

// exhaustion is one replay of the attempt, held until release.
type exhaustion struct {
	conns             []net.Conn
	admitted, refused int
	failed            error
}

// exhaust replays the attempt against addr.
func exhaust(addr string) *exhaustion {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur < rl.Max {
		rl.Cur = rl.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
	}
	e := &exhaustion{}
	setup := proto.Setup{Test: "TCP_STREAM", Flows: exhaustFlows, DurationNs: int64(60 * time.Second)}
	host, _, _ := net.SplitHostPort(addr)
	for range exhaustTests {
		c, ready, err := manual.AskFor(addr, setup, 10*time.Second)
		if err != nil {
			e.refused++
			continue
		}
		e.admitted++
		e.conns = append(e.conns, c)
		for range exhaustFlows {
			dc, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(ready.DataPort)), 5*time.Second)
			if err != nil {
				e.failed = err
				return e
			}
			e.conns = append(e.conns, dc)
		}
	}
	return e
}

func (e *exhaustion) release() {
	for _, c := range e.conns {
		c.Close()
	}
}

// benchExhaustion prints the daemon's peak threads and memory under the
// attempt, and a tcp_rr (rr) through it with the attempt held, as a ratio
// of the same test with the daemon idle, alternating round by round.
func benchExhaustion(addr string, pid, rounds int, rr func() float64) {
	fmt.Printf("\nthread exhaustion: %d tests of TCP_STREAM x %d flows from one address, never started\n", exhaustTests, exhaustFlows)
	rss0, _, threads0 := procFigures(pid)
	e := exhaust(addr)
	peakRSS, _, peakT := procFigures(pid)
	e.release()
	if e.failed != nil {
		fmt.Printf("  the attempt failed: %v\n", e.failed)
	}
	fmt.Printf("  %d admitted, %d refused at Setup; daemon threads %d idle, %d under it; RSS %.1f MiB idle, %.1f MiB under it\n",
		e.admitted, e.refused, threads0, peakT, float64(rss0)/1024, float64(peakRSS)/1024)
	idle, loaded, ratios := alternate(rounds, rr, func() float64 {
		e := exhaust(addr)
		defer e.release()
		return rr()
	})
	fmt.Printf("%-10s %14.2f %14.2f %8.3f   rounds: %s (target >= 0.9)\n", "exhaust", median(idle), median(loaded), median(ratios), fmtList(ratios))
}
