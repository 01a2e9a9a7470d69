package main

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// serverPorts is how many consecutive ports a server of the benchmark may
// take from its base: the floor takes floorPorts (TCP, and UDP on the
// first), pingpong three.
const serverPorts = floorPorts

// handedOut are the bases freePort has returned, so that no two servers
// get overlapping ranges.
var handedOut []int

// freePort returns a base port for a server: serverPorts consecutive TCP
// ports and the first's UDP port free on 127.0.0.1, below the kernel's
// range of ephemeral ports (ip_local_port_range) where it has room. A
// port the kernel picked for a listener of its own was once taken by some
// other program's connection before the server bound the next one up
// ("bind: Address already in use"), on a machine whose other tests held
// 80,000 connections in TIME_WAIT; below the range no connect takes one.
func freePort() int {
	lo, hi := 1024, 65535-serverPorts
	if elo, _, ok := ephemeralRange(); ok && elo-1-serverPorts-10000 >= 1000 {
		lo, hi = 10000, elo-1-serverPorts
	}
	for range 1000 {
		p := lo + rand.IntN(hi-lo+1)
		if !overlaps(p) && bindable(p) {
			handedOut = append(handedOut, p)
			return p
		}
	}
	fmt.Fprintf(os.Stderr, "nsbench: no %d free consecutive ports in %d-%d\n", serverPorts, lo, hi)
	exit(1)
	return 0
}

// overlaps reports whether a range from p meets one handed out before.
func overlaps(p int) bool {
	for _, q := range handedOut {
		if p < q+serverPorts && q < p+serverPorts {
			return true
		}
	}
	return false
}

// bindable reports whether the range from p can be bound now.
func bindable(p int) bool {
	var held []interface{ Close() error }
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := range serverPorts {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p+i)))
		if err != nil {
			return false
		}
		held = append(held, l)
	}
	u, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	if err != nil {
		return false
	}
	held = append(held, u)
	return true
}

// ephemeralRange reads the kernel's range of ephemeral ports.
func ephemeralRange() (lo, hi int, ok bool) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0, false
	}
	return parsePortRange(string(b))
}

// parsePortRange parses ip_local_port_range's "LO\tHI".
func parsePortRange(s string) (lo, hi int, ok bool) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, 0, false
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || lo < 1 || hi > 65535 || lo > hi {
		return 0, 0, false
	}
	return lo, hi, true
}
