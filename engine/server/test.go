package server

import (
	"fmt"
	"net/netip"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/proto"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// test is the server side of one test: its data endpoint and the thread
// that serves it.
type test struct {
	w       spec.Workload
	setup   *proto.Setup
	fd      int // the data listener (TCP) or socket (UDP)
	port    int
	buffers proto.Buffers
	stopped atomic.Bool
	done    chan struct{}
	counts  workload.ServerCounts
	err     error
	started time.Time
	release func()
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
	if typ == unix.SOCK_STREAM {
		if err := unix.Listen(fd, 1024); err != nil {
			sock.Close(fd)
			return nil, fmt.Errorf("data endpoint: listen %s: %w", bindTo, err)
		}
	}
	t := &test{w: w, setup: m, fd: fd, done: make(chan struct{})}
	t.port = int(sock.LocalAddr(fd).Port())
	g := sock.Granted(fd)
	t.buffers = proto.Buffers{Send: g.Send, Recv: g.Recv}
	t.release = s.cfg.Threads.Acquire(1)
	go t.serve()
	return t, nil
}

// serve is the data-path thread of the test.
func (t *test) serve() {
	runtime.LockOSThread() // never unlocked: the thread ends with the test
	defer close(t.done)
	m := t.setup
	switch t.w {
	case spec.TCPRR:
		var peer sock.Addr
		fd := -1
		for !t.stopped.Load() {
			nfd, en := sock.Accept(t.fd, &peer)
			if en == 0 {
				fd = nfd
				break
			}
			if en != unix.EAGAIN && en != unix.EINTR && en != unix.ECONNABORTED {
				t.err = fmt.Errorf("accept: %w", en)
				return
			}
		}
		if fd < 0 {
			return
		}
		defer sock.Close(fd)
		t.counts.Accepts++
		t.counts.Peers.Add(peer.AddrPort().Addr())
		srv := &workload.RRServer{FD: fd, Request: m.Request, Response: m.Response, Burst: m.Burst, Stop: &t.stopped}
		srv.Run()
		srv.Counts.Accepts, srv.Counts.Peers = t.counts.Accepts, t.counts.Peers
		t.counts, t.err = srv.Counts, srv.Err
	case spec.TCPCRR:
		srv := &workload.CRRServer{LFD: t.fd, Request: m.Request, Response: m.Response, Stop: &t.stopped}
		srv.Run()
		t.counts, t.err = srv.Counts, srv.Err
	case spec.UDPRR:
		srv := &workload.UDPRRServer{FD: t.fd, Response: m.Response, Stop: &t.stopped}
		srv.Run()
		t.counts, t.err = srv.Counts, srv.Err
	}
}

// start marks the beginning of the measured interval.
func (t *test) start() { t.started = time.Now() }

// stop ends the test's thread and returns the server's counts.
func (t *test) stop() proto.Results {
	elapsed := time.Since(t.started)
	t.stopped.Store(true)
	<-t.done
	c := &t.counts
	r := proto.Results{
		Transactions:  c.Transactions,
		BytesSent:     c.BytesSent,
		BytesReceived: c.BytesReceived,
		Accepts:       c.Accepts,
		ElapsedNs:     int64(elapsed),
		Errors:        c.Errors.Map(),
		PeersMore:     c.Peers.More,
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
