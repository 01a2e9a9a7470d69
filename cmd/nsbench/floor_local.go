package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/sock"
)

// The floor of the workloads pingpong has no mode for (issue 32's): UNIX
// domain sockets, both ways on one TCP connection, sendfile(2) and MPTCP.
// Raw calls on blocking sockets on locked threads like the rest of the
// floor; the client starts the server as a process of its own, whose
// threads pin themselves to CPU 0, where netscript's daemon runs, and the
// client stays where taskset put it:
//
//	nsbench floor local MODE SECONDS
//	nsbench floor local serve MODE DIR   (the server the client starts)
//
// MODE is unixrr, unixcrr, unixgramrr (one-byte transactions; prints
// transactions/s), unixstream, unixgramstream, sendfile, bidir (16384-byte
// messages; prints 10^6 bits/s, bidir both directions summed), mptcprr or
// mptcpstream (tcp_rr and tcp_stream's floor over IPPROTO_MPTCP).

// localModes are the modes of nsbench floor local.
var localModes = map[string]bool{"unixrr": true, "unixcrr": true, "unixgramrr": true, "unixstream": true,
	"unixgramstream": true, "sendfile": true, "bidir": true, "mptcprr": true, "mptcpstream": true}

// localSize is the floor's message size for the local stream modes.
const localSize = 16384

// runLocalFloor runs nsbench floor local MODE SECONDS.
func runLocalFloor(args []string) int {
	if len(args) == 3 && args[0] == "serve" && localModes[args[1]] {
		runtime.GOMAXPROCS(64) // as below
		l := &localFloor{mode: args[1], dir: args[2]}
		if err := l.serve(); err != nil {
			fmt.Fprintf(os.Stderr, "nsbench floor: %s server: %v\n", l.mode, err)
			return 1
		}
		return 0
	}
	if len(args) != 2 || !localModes[args[0]] {
		fmt.Fprintln(os.Stderr, "usage: nsbench floor local unixrr|unixcrr|unixgramrr|unixstream|unixgramstream|sendfile|bidir|mptcprr|mptcpstream SECONDS")
		return 2
	}
	secs, err := strconv.ParseFloat(args[1], 64)
	if err != nil || secs <= 0 {
		fmt.Fprintf(os.Stderr, "nsbench floor: seconds %q: not a positive number\n", args[1])
		return 2
	}
	dir, err := os.MkdirTemp("", "nsbench-floor-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsbench floor: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// Raw calls block holding their scheduler slot: a slot for every
	// loop, set before any blocks, as floorServe does.
	runtime.GOMAXPROCS(64)
	l := &localFloor{mode: args[0], d: time.Duration(secs * float64(time.Second)), dir: dir}
	v, err := l.run()
	if err != nil {
		fmt.Fprintf(os.Stderr, "nsbench floor: %s: %v\n", l.mode, err)
		return 1
	}
	fmt.Printf("%.2f\n", v)
	return 0
}

// localFloor is one run of a local mode.
type localFloor struct {
	mode string
	d    time.Duration
	dir  string // the UNIX domain sockets' and sendfile's files
}

// serverThread locks the calling goroutine to its thread and pins that
// thread to CPU 0, the daemon's.
func serverThread() {
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(0)
	unix.SchedSetaffinity(0, &set) // 0: this thread
}

// listen makes the server's socket: a UNIX domain one in l.dir, or TCP
// (MPTCP for the mptcp modes) on 127.0.0.1, listening for a stream. It
// returns the socket and the address to connect to.
func (l *localFloor) listen(family, typ, proto int) (int, unix.Sockaddr, error) {
	fd, err := unix.Socket(family, typ|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return -1, nil, fmt.Errorf("socket: %w", err)
	}
	var sa unix.Sockaddr = &unix.SockaddrUnix{Name: filepath.Join(l.dir, "s")}
	if family == unix.AF_INET {
		sa = &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return -1, nil, fmt.Errorf("bind: %w", err)
	}
	if family == unix.AF_INET {
		// Before listen, as netscript's server sets it: an MPTCP
		// connection's first subflow takes it from the listener (set on
		// the accepted socket only, the floor's MPTCP_RR ran at 250/s).
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	}
	if typ == unix.SOCK_STREAM {
		if err := unix.Listen(fd, 1024); err != nil {
			unix.Close(fd)
			return -1, nil, fmt.Errorf("listen: %w", err)
		}
	}
	if family == unix.AF_INET {
		got, err := unix.Getsockname(fd)
		if err != nil {
			unix.Close(fd)
			return -1, nil, fmt.Errorf("getsockname: %w", err)
		}
		sa = got
	}
	return fd, sa, nil
}

// dial connects a new socket of the kind to sa (a datagram socket binds a
// name of its own first, for the answers).
func (l *localFloor) dial(family, typ, proto int, sa unix.Sockaddr) (int, error) {
	fd, err := unix.Socket(family, typ|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	if typ == unix.SOCK_DGRAM {
		if err := unix.Bind(fd, &unix.SockaddrUnix{Name: filepath.Join(l.dir, "c")}); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("bind: %w", err)
		}
	}
	if family == unix.AF_INET {
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	}
	for {
		err = unix.Connect(fd, sa)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("connect: %w", err)
	}
	return fd, nil
}

// kind is the mode's socket: family, type and protocol.
func (l *localFloor) kind() (family, typ, proto int) {
	family, typ = unix.AF_UNIX, unix.SOCK_STREAM
	switch l.mode {
	case "unixgramrr", "unixgramstream":
		typ = unix.SOCK_DGRAM
	case "sendfile", "bidir":
		family = unix.AF_INET
	case "mptcprr", "mptcpstream":
		family, proto = unix.AF_INET, unix.IPPROTO_MPTCP
	}
	return family, typ, proto
}

// serve is the mode's server (nsbench floor local serve MODE DIR): it
// listens, prints "READY" and the port (0 for a UNIX domain socket, whose
// name is DIR/s), and serves until killed, its threads on CPU 0.
func (l *localFloor) serve() error {
	debug.SetGCPercent(-1)
	family, typ, proto := l.kind()
	lfd, sa, err := l.listen(family, typ, proto)
	if err != nil {
		return err
	}
	port := 0
	if in, ok := sa.(*unix.SockaddrInet4); ok {
		port = in.Port
	}
	switch l.mode {
	case "unixrr", "mptcprr":
		go floorAccept(lfd, func(fd int) { serverThread(); floorEcho(fd) }, false)
	case "unixcrr":
		go func() { serverThread(); floorAccept(lfd, floorCRR, true) }()
	case "unixstream", "sendfile", "mptcpstream":
		go floorAccept(lfd, func(fd int) { serverThread(); floorSink(fd) }, false)
	case "bidir":
		go floorAccept(lfd, func(fd int) {
			go func() { serverThread(); floorSource(fd) }()
			serverThread()
			floorSink(fd)
		}, false)
	case "unixgramrr":
		go func() { serverThread(); floorUDP(lfd) }()
	case "unixgramstream":
		go func() {
			serverThread()
			buf := make([]byte, 1<<17)
			for {
				unix.Read(lfd, buf)
			}
		}()
	}
	fmt.Printf("READY %d\n", port)
	select {} // until killed
}

// startServer starts the mode's server as a process of its own (as
// pingpong's and the floor's other servers are: a context switch between
// two processes costs what it costs netscript and its daemon, where one
// between two threads of a process keeps the address space) and returns
// where to connect and the process, to kill at the end.
func (l *localFloor) startServer() (unix.Sockaddr, *exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(self, "floor", "local", "serve", l.mode, l.dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	port, perr := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "READY "))
	if err != nil || perr != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, nil, fmt.Errorf("the floor's server said %q: %v", line, err)
	}
	if port > 0 {
		return &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: port}, cmd, nil
	}
	return &unix.SockaddrUnix{Name: filepath.Join(l.dir, "s")}, cmd, nil
}

// run starts the mode's server, runs its client for l.d and returns the
// client's figure.
func (l *localFloor) run() (float64, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	family, typ, proto := l.kind()
	sa, srv, err := l.startServer()
	if err != nil {
		return 0, err
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if l.mode == "unixcrr" {
		return l.crr(family, typ, sa)
	}
	fd, err := l.dial(family, typ, proto, sa)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	switch l.mode {
	case "unixrr", "unixgramrr", "mptcprr":
		return l.rr(fd)
	case "sendfile":
		return l.sendfile(fd)
	case "bidir":
		return l.bidir(fd)
	}
	return l.stream(fd)
}

// rr is one-byte transactions on fd for l.d, in transactions/s.
func (l *localFloor) rr(fd int) (float64, error) {
	var buf [1]byte
	n, start := 0, time.Now()
	for {
		if err := floorIO(sock.Write, fd, buf[:]); err != nil {
			return 0, fmt.Errorf("send: %w", err)
		}
		if err := floorIO(sock.Read, fd, buf[:]); err != nil {
			return 0, fmt.Errorf("recv: %w", err)
		}
		n++
		if n&63 == 0 && time.Since(start) >= l.d {
			return float64(n) / time.Since(start).Seconds(), nil
		}
	}
}

// crr is a UNIX domain connection per one-byte transaction, the server
// closing first, for l.d, in transactions/s.
func (l *localFloor) crr(family, typ int, sa unix.Sockaddr) (float64, error) {
	var buf [1]byte
	n, start := 0, time.Now()
	for {
		fd, err := l.dial(family, typ, 0, sa)
		if err != nil {
			return 0, err
		}
		err = floorIO(sock.Write, fd, buf[:])
		if err == nil {
			err = floorIO(sock.Read, fd, buf[:])
		}
		for err == nil {
			err = floorIO(sock.Read, fd, buf[:])
		}
		sock.Close(fd)
		if err != errPeerClosed {
			return 0, err
		}
		n++
		if n&15 == 0 && time.Since(start) >= l.d {
			return float64(n) / time.Since(start).Seconds(), nil
		}
	}
}

// stream sends localSize-byte messages on fd for l.d, in 10^6 bits/s.
func (l *localFloor) stream(fd int) (float64, error) {
	buf := make([]byte, localSize)
	n, start := 0, time.Now()
	for time.Since(start) < l.d {
		if err := floorIO(sock.Write, fd, buf); err != nil {
			return 0, fmt.Errorf("send: %w", err)
		}
		n++
	}
	return float64(n) * localSize * 8 / time.Since(start).Seconds() / 1e6, nil
}

// sendfile sends a file of 128 messages with sendfile(2) calls of
// localSize bytes, round it again and again, for l.d, in 10^6 bits/s.
func (l *localFloor) sendfile(fd int) (float64, error) {
	const blocks = 128
	name := filepath.Join(l.dir, "file")
	if err := os.WriteFile(name, make([]byte, blocks*localSize), 0o600); err != nil {
		return 0, err
	}
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	ffd := int(f.Fd())
	var sent int64
	off, start := int64(0), time.Now()
	for time.Since(start) < l.d {
		if off == blocks*localSize {
			off = 0
		}
		n, err := unix.Sendfile(fd, ffd, &off, localSize)
		if err != nil && err != unix.EINTR {
			return 0, fmt.Errorf("sendfile: %w", err)
		}
		sent += int64(n)
	}
	return float64(sent) * 8 / time.Since(start).Seconds() / 1e6, nil
}

// bidir sends and receives localSize-byte messages on fd at once (the
// receiving on a second thread) for l.d, and returns both directions'
// 10^6 bits/s summed.
func (l *localFloor) bidir(fd int) (float64, error) {
	got := make(chan int64, 1)
	start := time.Now()
	go func() {
		runtime.LockOSThread()
		buf := make([]byte, 1<<17)
		var n int64
		for time.Since(start) < l.d {
			k, en := sock.Read(fd, buf)
			if en == unix.EINTR {
				continue
			}
			if en != 0 || k == 0 {
				break
			}
			n += int64(k)
		}
		got <- n
	}()
	sent, err := l.stream(fd)
	if err != nil {
		return 0, err
	}
	el := time.Since(start).Seconds()
	unix.Shutdown(fd, unix.SHUT_RDWR) // the reader's last read returns
	return sent + float64(<-got)*8/el/1e6, nil
}

// floorSource sends localSize-byte messages on fd until the peer goes.
func floorSource(fd int) {
	buf := make([]byte, localSize)
	for floorIO(sock.Write, fd, buf) == nil {
	}
}

// mptcpListenable reports whether this kernel gives an MPTCP socket (the
// mptcp rows need net.mptcp.enabled=1).
func mptcpListenable() bool {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_MPTCP)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
