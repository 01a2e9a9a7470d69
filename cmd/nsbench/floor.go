package main

import (
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// The Go floor: the least a Go program can do for each of pingpong's
// workloads, done the way pingpong does it in C: raw system calls on
// blocking sockets, on threads locked to their goroutines, the clock read
// as seldom as pingpong reads it, no histogram, no bookkeeping. Its ratio to
// pingpong, measured in the same rounds, is what any Go engine pays on this
// machine (the runtime's threads, signals and scheduler); netscript's ratio
// under it is netscript's own cost. The layout is pingpong's:
//
//	nsbench floor serve PORT       on 127.0.0.1: PORT tcp echo, PORT+1 tcp
//	                               sink, PORT+2 tcp connect/request/response/
//	                               close (server closes first), PORT+3 tcp
//	                               connect/close (TCP_CC: the server accepts
//	                               and closes first), PORT udp echo
//	nsbench floor rr|crr|cc|udprr HOST PORT SECONDS   prints transactions/s
//	nsbench floor stream HOST PORT SECONDS [SIZE]     prints 10^6 bits/s
//
// Requests and responses are one byte; stream messages SIZE (16384) bytes.
// pingpong has no TCP_CC; its row compares netscript with the floor alone.

const floorUsage = "usage: nsbench floor serve PORT | nsbench floor rr|crr|cc|udprr|stream HOST PORT SECONDS [SIZE] | nsbench floor local MODE SECONDS"

// floorPorts is how many consecutive ports the floor's server takes.
const floorPorts = 4

// runFloor runs one floor command and returns the exit status.
func runFloor(args []string) int {
	if len(args) > 0 && args[0] == "local" {
		return runLocalFloor(args[1:]) // floor_local.go
	}
	if len(args) == 2 && args[0] == "serve" {
		port, err := strconv.Atoi(args[1])
		if err != nil || port <= 0 || port > 65536-floorPorts {
			fmt.Fprintf(os.Stderr, "nsbench floor: port %q: want 1-%d\n", args[1], 65536-floorPorts)
			return 2
		}
		if err := floorServe(port); err != nil {
			fmt.Fprintf(os.Stderr, "nsbench floor: %v\n", err)
			return 1
		}
		return 0
	}
	if len(args) < 4 || len(args) > 5 || (len(args) == 5) != (args[0] == "stream") {
		fmt.Fprintln(os.Stderr, floorUsage)
		return 2
	}
	c := floorRun{mode: args[0], size: 16384}
	switch c.mode {
	case "rr", "crr", "cc", "udprr", "stream":
	default:
		fmt.Fprintln(os.Stderr, floorUsage)
		return 2
	}
	var err error
	if c.ap, err = netip.ParseAddrPort(args[1] + ":" + args[2]); err != nil || !c.ap.Addr().Is4() || c.ap.Port() == 0 || int(c.ap.Port()) > 65536-floorPorts {
		fmt.Fprintf(os.Stderr, "nsbench floor: %s:%s: not an IPv4 address and a port in 1-%d\n", args[1], args[2], 65536-floorPorts)
		return 2
	}
	secs, err := strconv.ParseFloat(args[3], 64)
	if err != nil || secs <= 0 {
		fmt.Fprintf(os.Stderr, "nsbench floor: seconds %q: not a positive number\n", args[3])
		return 2
	}
	c.d = time.Duration(secs * float64(time.Second))
	if len(args) == 5 {
		if c.size, err = strconv.Atoi(args[4]); err != nil || c.size <= 0 || c.size > 1<<16 {
			fmt.Fprintf(os.Stderr, "nsbench floor: size %q: want 1-65536\n", args[4])
			return 2
		}
	}
	v, err := c.run()
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsbench floor: %s: %v\n", c.mode, err)
		return 1
	}
	fmt.Printf("%.2f\n", v)
	return 0
}

// floorRun is one client run of the floor.
type floorRun struct {
	mode string
	ap   netip.AddrPort // the server's base port
	d    time.Duration
	size int // stream message size
}

// run runs the client for c.d and returns its figure: transactions per
// second, or for stream 10^6 bits per second sent.
func (c floorRun) run() (float64, error) {
	// As pingpong, no garbage collection (nothing here allocates after
	// the buffer anyway).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, max(c.size, 1))
	n := 0
	start := time.Now()
	switch c.mode {
	case "rr", "udprr":
		typ := unix.SOCK_STREAM
		if c.mode == "udprr" {
			typ = unix.SOCK_DGRAM
		}
		fd, err := floorDial(typ, sock.NewAddr(c.ap))
		if err != nil {
			return 0, err
		}
		defer unix.Close(fd)
		start = time.Now()
		for {
			if err := floorIO(sock.Write, fd, buf[:1]); err != nil {
				return 0, fmt.Errorf("send: %w", err)
			}
			if err := floorIO(sock.Read, fd, buf[:1]); err != nil {
				return 0, fmt.Errorf("recv: %w", err)
			}
			n++
			if n&63 == 0 && time.Since(start) >= c.d {
				break
			}
		}
	case "crr":
		a := sock.NewAddr(netip.AddrPortFrom(c.ap.Addr(), c.ap.Port()+2))
		for {
			fd, err := floorDial(unix.SOCK_STREAM, a)
			if err != nil {
				return 0, err
			}
			err = floorIO(sock.Write, fd, buf[:1])
			if err == nil {
				err = floorIO(sock.Read, fd, buf[:1])
			}
			for err == nil { // until the server's close
				err = floorIO(sock.Read, fd, buf[:1])
			}
			sock.Close(fd)
			if err != errPeerClosed {
				return 0, err
			}
			n++
			if n&15 == 0 && time.Since(start) >= c.d {
				break
			}
		}
	case "cc":
		// netperf's TCP_CC: connect, read the server's close, close.
		a := sock.NewAddr(netip.AddrPortFrom(c.ap.Addr(), c.ap.Port()+3))
		for {
			fd, err := floorDial(unix.SOCK_STREAM, a)
			if err != nil {
				return 0, err
			}
			err = floorIO(sock.Read, fd, buf[:1])
			sock.Close(fd)
			if err != errPeerClosed {
				return 0, fmt.Errorf("the server did not close first: %v", err)
			}
			n++
			if n&15 == 0 && time.Since(start) >= c.d {
				break
			}
		}
	case "stream":
		fd, err := floorDial(unix.SOCK_STREAM, sock.NewAddr(netip.AddrPortFrom(c.ap.Addr(), c.ap.Port()+1)))
		if err != nil {
			return 0, err
		}
		defer unix.Close(fd)
		start = time.Now()
		for time.Since(start) < c.d {
			if err := floorIO(sock.Write, fd, buf); err != nil {
				return 0, fmt.Errorf("send: %w", err)
			}
			n++
		}
		return float64(n) * float64(len(buf)) * 8 / time.Since(start).Seconds() / 1e6, nil
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// errPeerClosed is what floorIO returns when the peer has closed.
var errPeerClosed = fmt.Errorf("the peer closed the connection")

// floorDial connects a socket of type typ to a, with TCP_NODELAY on TCP as
// pingpong's client sets it: raw calls, as netscript's loops make them.
func floorDial(typ int, a *sock.Addr) (int, error) {
	fd, en := sock.Socket(unix.AF_INET, typ)
	if en != 0 {
		return -1, fmt.Errorf("socket: %w", en)
	}
	if typ == unix.SOCK_STREAM {
		sock.SetInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	}
	for {
		en = sock.Connect(fd, a)
		if en != unix.EINTR {
			break
		}
	}
	if en != 0 {
		sock.Close(fd)
		return -1, fmt.Errorf("connect %v: %w", a, en)
	}
	return fd, nil
}

// floorIO does one send or receive of buf (a send may be partial, as
// pingpong's stream counts whole messages it retries the rest), again
// after a signal.
func floorIO(op func(int, []byte) (int, unix.Errno), fd int, buf []byte) error {
	for len(buf) > 0 {
		n, en := op(fd, buf)
		switch {
		case en == unix.EINTR:
			continue
		case en != 0:
			return en
		case n == 0:
			return errPeerClosed
		}
		buf = buf[n:]
	}
	return nil
}
