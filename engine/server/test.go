package server

import (
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/cpu"
	"netscript/engine/proto"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// fastOpenQueue is the TCP_FASTOPEN queue of a Fast Open listener: as long
// as its accept backlog, so a fast TCP_CRR never falls back for lack of
// room (netperf uses 5).
const fastOpenQueue = 1024

// test is the server side of one test: its data endpoint and the thread
// that serves it.
type test struct {
	w        spec.Workload
	setup    *proto.Setup
	fd       int // the data listener (TCP) or socket (UDP)
	port     int
	buffers  proto.Buffers
	sendSize int // TCP_MAERTS
	recvSize int // TCP_STREAM, UDP_STREAM
	stopped  atomic.Bool
	done     chan struct{}
	counts   workload.ServerCounts
	err      error
	started  time.Time
	release  func()
	check    func() error // TCP_CRR: the --max-conn-rate bucket (session.go)

	// Set by the serving thread before done is closed.
	affinity   []int
	threadTime time.Duration

	cpuStart cpu.Snapshot // with Setup.CPUUtil: /proc/stat at Start
	cpuErr   error
}

// newTest opens the data endpoint on the control connection's local
// address and starts the thread that serves it.
func (s *Server) newTest(w spec.Workload, m *proto.Setup, local netip.Addr) (*test, error) {
	family := unix.AF_INET
	if local.Is6() {
		family = unix.AF_INET6
	}
	typ := unix.SOCK_STREAM
	if w.UDP() {
		typ = unix.SOCK_DGRAM
	}
	opts := sock.Options{NoDelay: m.NoDelay, SendBuffer: m.SendBuffer, RecvBuffer: m.RecvBuffer, ReuseAddr: true}
	bindTo := netip.AddrPortFrom(local, uint16(m.DataPort))
	fd, err := sock.Open(family, typ, opts, bindTo)
	if err != nil {
		return nil, fmt.Errorf("data endpoint: %w", err)
	}
	if m.FastOpen {
		if err := sock.ListenFastOpen(fd, fastOpenQueue); err != nil {
			sock.Close(fd)
			return nil, fmt.Errorf("data endpoint %s: %w", bindTo, err)
		}
	}
	if typ == unix.SOCK_STREAM {
		if err := unix.Listen(fd, 1024); err != nil {
			sock.Close(fd)
			return nil, fmt.Errorf("data endpoint: listen %s: %w", bindTo, err)
		}
	}
	t := &test{w: w, setup: m, fd: fd, done: make(chan struct{}), check: s.connRate(w)}
	t.port = int(sock.LocalAddr(fd).Port())
	g := sock.Granted(fd)
	t.buffers = proto.Buffers{Send: g.Send, Recv: g.Recv}
	t.sendSize, t.recvSize = m.SendSize, m.RecvSize
	if t.sendSize == 0 {
		t.sendSize = spec.DefaultSendSize(w, g.Send)
	}
	if t.recvSize == 0 {
		t.recvSize = spec.DefaultRecvSize(w, g.Recv)
	}
	t.release = s.cfg.Threads.Acquire(1)
	go t.serve()
	return t, nil
}

// serve is the data-path thread of the test.
func (t *test) serve() {
	runtime.LockOSThread() // never unlocked: the thread ends with the test, and its binding with it
	defer close(t.done)
	m := t.setup
	if m.CPU != nil {
		if err := cpu.Bind(*m.CPU); err != nil {
			t.err = fmt.Errorf("remote_cpu: %w", err)
			return
		}
	}
	t.affinity, _ = cpu.Affinity()
	if m.CPUUtil {
		t0, err := cpu.ThreadTime()
		defer func() {
			if t1, err1 := cpu.ThreadTime(); err == nil && err1 == nil {
				t.threadTime = t1.Sub(t0).Total()
			}
		}()
	}
	switch t.w {
	case spec.TCPRR, spec.TCPStream, spec.TCPMaerts:
		fd := t.acceptOne()
		if fd < 0 {
			return
		}
		defer sock.Close(fd)
		t.serveConn(fd)
	case spec.TCPCRR:
		srv := &workload.CRRServer{LFD: t.fd, Request: m.Request, Response: m.Response, FastOpen: m.FastOpen, Stop: &t.stopped, Check: t.check}
		srv.Run()
		t.counts, t.err = srv.Counts, srv.Err
	case spec.UDPRR:
		srv := &workload.UDPRRServer{FD: t.fd, Response: m.Response, Stop: &t.stopped}
		srv.Run()
		t.counts, t.err = srv.Counts, srv.Err
	case spec.UDPStream:
		srv := &workload.UDPSink{FD: t.fd, RecvSize: t.recvSize, Stop: &t.stopped}
		srv.Run()
		t.counts, t.err = srv.Counts, srv.Err
	}
}

// acceptOne waits for the test's one data connection; it returns -1 if the
// test is stopped first or accept fails.
func (t *test) acceptOne() int {
	var peer sock.Addr
	for !t.stopped.Load() {
		fd, en := sock.Accept(t.fd, &peer)
		if en == 0 {
			t.counts.Accepts++
			t.counts.Peers.Add(peer.AddrPort().Addr())
			return fd
		}
		if en != unix.EAGAIN && en != unix.EINTR && en != unix.ECONNABORTED {
			t.err = fmt.Errorf("accept: %w", en)
			return -1
		}
	}
	return -1
}

// serveConn runs the loop of a one-connection test on fd.
func (t *test) serveConn(fd int) {
	m := t.setup
	var c workload.ServerCounts
	switch t.w {
	case spec.TCPRR:
		srv := &workload.RRServer{FD: fd, Request: m.Request, Response: m.Response, Burst: m.Burst, Stop: &t.stopped}
		srv.Run()
		c, t.err = srv.Counts, srv.Err
	case spec.TCPStream:
		srv := &workload.StreamSink{FD: fd, RecvSize: t.recvSize, Stop: &t.stopped}
		srv.Run()
		c, t.err = srv.Counts, srv.Err
	case spec.TCPMaerts:
		srv := &workload.MaertsSource{FD: fd, SendSize: t.sendSize, Bytes: m.Bytes, Pace: workload.NewPacer(m.Rate), Stop: &t.stopped}
		srv.Run()
		c, t.err = srv.Counts, srv.Err
	}
	c.Accepts, c.Peers = t.counts.Accepts, t.counts.Peers
	t.counts = c
}

// start marks the beginning of the measured interval.
func (t *test) start() {
	if t.setup.CPUUtil {
		t.cpuStart, t.cpuErr = cpu.SystemSnapshot()
	}
	t.started = time.Now()
}

// stop ends the test's thread and returns the server's counts.
func (t *test) stop() proto.Results {
	elapsed := time.Since(t.started)
	var util cpu.Utilization
	if t.setup.CPUUtil && t.cpuErr == nil {
		var end cpu.Snapshot
		if end, t.cpuErr = cpu.SystemSnapshot(); t.cpuErr == nil {
			util, t.cpuErr = cpu.SystemUtilization(t.cpuStart, end)
		}
	}
	t.stopped.Store(true)
	<-t.done
	c := &t.counts
	r := proto.Results{
		Transactions:     c.Transactions,
		BytesSent:        c.BytesSent,
		BytesReceived:    c.BytesReceived,
		Accepts:          c.Accepts,
		ElapsedNs:        int64(elapsed),
		Errors:           c.Errors.Map(),
		PeersMore:        c.Peers.More,
		SendCalls:        c.SendCalls,
		RecvCalls:        c.RecvCalls,
		FastOpenAccepted: c.FastOpen,
		Affinity:         t.affinity,
	}
	if t.setup.CPUUtil && t.cpuErr == nil {
		r.CPU = &proto.CPUReport{Util: util.Percent, NumCPU: util.NumCPU, ThreadNs: int64(t.threadTime), ElapsedNs: int64(elapsed)}
	}
	for i, a := range c.Peers.Addrs {
		r.Peers = append(r.Peers, proto.Peer{Addr: a.String(), Count: c.Peers.Counts[i]})
	}
	return r
}

// close ends the thread if it still runs and frees the endpoint.
func (t *test) close() {
	t.stopped.Store(true)
	<-t.done
	sock.Close(t.fd)
	t.release()
}

// info describes this server to clients.
func (s *Server) info() proto.ServerInfo {
	var u unix.Utsname
	kernel := ""
	if unix.Uname(&u) == nil {
		kernel = unix.ByteSliceToString(u.Release[:])
	}
	return proto.ServerInfo{Version: s.cfg.Version, Kernel: kernel}
}

// fastOpenSysctl reads net.ipv4.tcp_fastopen of the server's network
// namespace, or -1 if it cannot be read.
func fastOpenSysctl() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_fastopen")
	if err != nil {
		return -1
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 0, 32)
	if err != nil {
		return -1
	}
	return int(v)
}
