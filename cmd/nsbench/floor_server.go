package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// floorServe serves the floor's workloads on 127.0.0.1 from port to port+3,
// as pingpong's server does (and TCP_CC on port+3), until the process is
// killed or an accept fails.
func floorServe(port int) error {
	// Each loop holds its scheduler slot while it blocks in a raw call
	// without a timeout (netscript's loops wake every 50 ms; pingpong's
	// never do), so the accept loops need slots of their own. Anything
	// that stops the world would wait on a blocked loop forever: a
	// garbage collection (the floor never collects; it allocates only per
	// TCP_RR or stream connection, a few a run), and a change of
	// GOMAXPROCS, so the slots are set once, before any loop blocks, and
	// not raised per connection as workload.Threads does in netscript
	// (whose loops wake within a tick). 64 is far more connections than a
	// benchmark run holds at once.
	runtime.GOMAXPROCS(64)
	debug.SetGCPercent(-1)
	var lfd [floorPorts]int
	for i := range lfd {
		fd, err := floorListen(unix.SOCK_STREAM, port+i)
		if err != nil {
			return err
		}
		lfd[i] = fd
	}
	ufd, err := floorListen(unix.SOCK_DGRAM, port)
	if err != nil {
		return err
	}
	errc := make(chan error, 4)
	go func() { errc <- floorAccept(lfd[0], floorEcho, false) }()
	go func() { errc <- floorAccept(lfd[1], floorSink, false) }()
	go func() { errc <- floorAccept(lfd[2], floorCRR, true) }()
	go func() { errc <- floorAccept(lfd[3], floorCC, true) }()
	go floorUDP(ufd)
	return <-errc
}

// floorListen binds a socket of type typ to 127.0.0.1:port (and listens, for
// TCP).
func floorListen(typ, port int) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("bind 127.0.0.1:%d: %w", port, err)
	}
	if typ == unix.SOCK_STREAM {
		if err := unix.Listen(fd, 1024); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("listen 127.0.0.1:%d: %w", port, err)
		}
	}
	return fd, nil
}

// floorAccept hands each connection on lfd to serve: on its own locked
// thread, or inline when inline is set (TCP_CRR, as pingpong serves it; a
// raw accept then, which allocates nothing).
func floorAccept(lfd int, serve func(int), inline bool) error {
	if inline {
		runtime.LockOSThread()
	}
	for {
		fd, en := sock.Accept(lfd, nil)
		if en == unix.EINTR || en == unix.ECONNABORTED {
			continue
		}
		if en != 0 {
			return fmt.Errorf("accept: %w", en)
		}
		if inline {
			serve(fd)
			continue
		}
		go func() {
			runtime.LockOSThread() // the thread ends with the connection
			serve(fd)
		}()
	}
}

// floorEcho answers each one-byte request on fd until the client closes.
func floorEcho(fd int) {
	defer unix.Close(fd)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	buf := make([]byte, 1)
	for floorIO(sock.Read, fd, buf) == nil && floorIO(sock.Write, fd, buf) == nil {
	}
}

// floorSink reads fd until the client closes.
func floorSink(fd int) {
	defer unix.Close(fd)
	buf := make([]byte, 1<<17)
	for {
		n, en := sock.Read(fd, buf)
		if n == 0 && en != unix.EINTR {
			return
		}
	}
}

// floorCRR answers one request and closes first.
func floorCRR(fd int) {
	var buf [1]byte
	if floorIO(sock.Read, fd, buf[:]) == nil {
		floorIO(sock.Write, fd, buf[:])
	}
	sock.Close(fd)
}

// floorCC closes a TCP_CC connection first, having read nothing.
func floorCC(fd int) { sock.Close(fd) }

// floorUDP answers each datagram with one byte to its sender.
func floorUDP(fd int) {
	runtime.LockOSThread()
	buf := make([]byte, 65536)
	var from sock.Addr
	for {
		if _, en := sock.RecvFrom(fd, buf, &from); en == 0 {
			sock.SendTo(fd, buf[:1], 0, &from)
		}
	}
}
