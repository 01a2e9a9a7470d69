package main

import (
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// The Go floor: the least a Go program can do for a TCP_RR or UDP_RR
// transaction, as pingpong does it in C: one raw send and one raw recv of a
// byte on a thread locked to its goroutine, the clock read every 64
// transactions, no histogram, no per-transaction bookkeeping. Its ratio to
// pingpong, measured in the same rounds, is what any Go engine pays on this
// machine (the runtime's threads, signals and scheduler); netscript's ratio
// below it is netscript's own cost.
//
//	nsbench floor serve PORT                TCP and UDP echo on 127.0.0.1:PORT
//	nsbench floor rr|udprr HOST PORT SECS   prints transactions per second

// runFloor runs one floor command and returns the exit status.
func runFloor(args []string) int {
	if len(args) == 2 && args[0] == "serve" {
		port, err := strconv.Atoi(args[1])
		if err != nil {
			fmt.Fprintf(os.Stderr, "nsbench floor: port %q: %v\n", args[1], err)
			return 2
		}
		if err := floorServe(port); err != nil {
			fmt.Fprintf(os.Stderr, "nsbench floor: %v\n", err)
			return 1
		}
		return 0
	}
	if len(args) != 4 || (args[0] != "rr" && args[0] != "udprr") {
		fmt.Fprintln(os.Stderr, "usage: nsbench floor serve PORT | nsbench floor rr|udprr HOST PORT SECONDS")
		return 2
	}
	ap, err := netip.ParseAddrPort(args[1] + ":" + args[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsbench floor: address: %v\n", err)
		return 2
	}
	secs, err := strconv.ParseFloat(args[3], 64)
	if err != nil || secs <= 0 {
		fmt.Fprintf(os.Stderr, "nsbench floor: seconds %q: not a positive number\n", args[3])
		return 2
	}
	rate, err := floorClient(args[0], ap, time.Duration(secs*float64(time.Second)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsbench floor: %v\n", err)
		return 1
	}
	fmt.Printf("%.2f\n", rate)
	return 0
}

// floorClient runs the floor's client loop for d and returns transactions
// per second.
func floorClient(mode string, ap netip.AddrPort, d time.Duration) (float64, error) {
	typ := unix.SOCK_STREAM
	if mode == "udprr" {
		typ = unix.SOCK_DGRAM
	}
	fd, err := unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	if typ == unix.SOCK_STREAM {
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) // as pingpong's client
	}
	if err := unix.Connect(fd, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}); err != nil {
		return 0, fmt.Errorf("connect %v: %w", ap, err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, 1)
	n := 0
	start := time.Now()
	for {
		if err := floorIO(sock.Write, fd, buf); err != nil {
			return 0, fmt.Errorf("send: %w", err)
		}
		if err := floorIO(sock.Read, fd, buf); err != nil {
			return 0, fmt.Errorf("recv: %w", err)
		}
		n++
		if n&63 == 0 && time.Since(start) >= d {
			break
		}
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// floorIO does one send or receive of buf, again after a signal.
func floorIO(op func(int, []byte) (int, unix.Errno), fd int, buf []byte) error {
	for {
		n, en := op(fd, buf)
		switch {
		case en == unix.EINTR:
			continue
		case en != 0:
			return en
		case n == 0:
			return fmt.Errorf("the peer closed the connection")
		}
		return nil
	}
}

// floorServe echoes one byte per request over TCP (a locked thread per
// connection) and UDP on 127.0.0.1:port until the process is killed.
func floorServe(port int) error {
	// Each echo loop holds its scheduler slot while it blocks in a raw
	// call (as netscript's loops do), so the accept loop needs slots of
	// its own: one per connection and the UDP loop, and then some.
	runtime.GOMAXPROCS(64)
	addr := &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}
	lfd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	unix.SetsockoptInt(lfd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err := unix.Bind(lfd, addr); err != nil {
		return fmt.Errorf("bind tcp 127.0.0.1:%d: %w", port, err)
	}
	if err := unix.Listen(lfd, 64); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	ufd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	if err := unix.Bind(ufd, addr); err != nil {
		return fmt.Errorf("bind udp 127.0.0.1:%d: %w", port, err)
	}
	go floorUDP(ufd)
	for {
		fd, _, err := unix.Accept4(lfd, unix.SOCK_CLOEXEC)
		if err == unix.EINTR || err == unix.ECONNABORTED {
			continue
		}
		if err != nil {
			return fmt.Errorf("accept: %w", err)
		}
		go floorEcho(fd)
	}
}

// floorEcho answers each one-byte request on fd until the client closes.
func floorEcho(fd int) {
	runtime.LockOSThread()
	defer unix.Close(fd)
	buf := make([]byte, 1)
	for floorIO(sock.Read, fd, buf) == nil && floorIO(sock.Write, fd, buf) == nil {
	}
}

// floorUDP answers each datagram with one byte to its sender.
func floorUDP(fd int) {
	runtime.LockOSThread()
	buf := make([]byte, 65536)
	var from sock.Addr
	for {
		_, en := sock.RecvFrom(fd, buf, &from)
		if en == 0 {
			sock.SendTo(fd, buf[:1], 0, &from)
		}
	}
}
