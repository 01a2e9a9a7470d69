package server

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/auth"
	"netscript/engine/cpu"
	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/sysinfo"
	"netscript/engine/workload"
)

// fastOpenQueue is the TCP_FASTOPEN queue of a Fast Open listener: as long
// as its accept backlog, so a fast TCP_CRR never falls back for lack of
// room (netperf uses 5).
const fastOpenQueue = 1024

// test is the server side of one test: its data endpoints and the threads
// that serve them.
type test struct {
	w         *spec.Workload
	setup     *proto.Setup
	eps       []*endpoint // one per distinct data port; most tests have one
	port      int         // the first endpoint's port, for Ready
	flows     int
	buffers   proto.Buffers
	sendSize  int // TCP_MAERTS
	recvSize  int // TCP_STREAM, UDP_STREAM
	stopped   atomic.Bool
	done      chan struct{}
	accepted  chan struct{} // closed once every flow's connection (or greeting) is in
	begin     chan struct{} // closed when the test starts (start)
	arrived   atomic.Int64  // flows whose connection was accepted (and proved the tag), or that greeted
	lastIn    atomic.Int64  // when the last of them arrived, Unix ns; 0: none yet
	startedAt time.Time
	threads   *workload.Threads
	release   func()
	check     func() error // TCP_CRR: the --max-conn-rate bucket (session.go)

	// Set by the serving threads (under mu) before done is closed.
	mu         sync.Mutex
	counts     workload.ServerCounts
	conns      []proto.ConnCounts // TCP_RR and streams: each connection's counts
	err        error
	affinity   []int
	threadTime time.Duration

	cpuStart cpu.Snapshot // with Setup.CPUUtil: /proc/stat at Start
	cpuErr   error

	// A native test's data key (from its control handshake), the tag every
	// TCP data connection must send first and the server's answer to it
	// (auth.ConnHello, auth.ConnAck); nil for a netperf test. allowed is
	// where TCP_CRR connections and a netperf test's data may come from
	// (a UDP endpoint's own flows are in endpoint.allowed).
	key       []byte
	tag, ack  []byte
	allowed   *workload.Allow
	strangers atomic.Uint64 // TCP data connections refused for a wrong or missing tag (or address)
	netperf   bool          // served to a netperf client: its end-of-test signals (netperf.go)
	npBufs    proto.Buffers // a netperf test's connection's buffers at its end (under mu)

	knobs sock.Knobs // the socket knobs of Setup (tcpinfo.go)
}

// endpoint is one data port of a test and how many flows come to it.
type endpoint struct {
	fd    int
	port  int
	flows int
	want  map[uint32]bool // the numbers of the flows that come to it
	tags  tagCheck        // connections still proving their tag
	// allowed is, once a UDP endpoint's flows have greeted it, the exact
	// source of each (greet.go).
	allowed *workload.Allow
}

// newTest opens the data endpoints on the control connection's local
// address and starts the threads that serve them.
func (s *Server) newTest(w *spec.Workload, m *proto.Setup, local netip.Addr, gd guard) (*test, error) {
	eps, flows, err := s.plan(w, m)
	if err != nil {
		return nil, err
	}
	t := &test{w: w, setup: m, eps: eps, flows: flows, done: make(chan struct{}), accepted: make(chan struct{}),
		begin: make(chan struct{}), threads: s.cfg.Threads, check: s.connRate(w)}
	if t.knobs, err = knobsOf(w, m); err != nil {
		return nil, err
	}
	if err := t.guard(gd); err != nil {
		return nil, err
	}
	for _, ep := range eps {
		if err := t.open(ep, local); err != nil {
			t.closeEndpoints()
			return nil, err
		}
	}
	t.port = eps[0].port
	g := sock.Granted(eps[0].fd)
	t.buffers = proto.Buffers{Send: g.Send, Recv: g.Recv}
	t.sendSize, t.recvSize = m.SendSize, m.RecvSize
	if t.sendSize == 0 {
		t.sendSize = spec.DefaultSendSize(w, g.Send)
	}
	if t.recvSize == 0 {
		t.recvSize = spec.DefaultRecvSize(w, g.Recv)
	}
	// The test's threads are charged now, before any connection arrives,
	// and returned when it ends (close).
	release, err := s.cfg.Threads.TryAcquire(t.threadCount())
	if err != nil {
		t.closeEndpoints()
		return nil, fmt.Errorf("flows: the test %w", limits.Hit("max-threads", err))
	}
	t.release = release
	go t.serve()
	return t, nil
}

// guard is what a session asks of its test's data.
type guard struct {
	key    []byte     // the session's data key (a native test's)
	client netip.Addr // the control connection's client address
	// netperf: a netperf client's test, which has no key: its data may
	// come only from the control connection's address, unless anySource
	// (serve --netperf-any-source: a TCP test's from anywhere, as netserver
	// takes it; a UDP test's never, as its answers go where its datagrams
	// say they come from).
	netperf   bool
	anySource bool
}

// guard sets the test up to take data only from its own client: a tag on
// every TCP data connection, a greeting of every UDP flow, and for TCP_CRR
// the client's addresses. A netperf client cannot tag: its test's data is
// taken from its control connection's address (and, for TCP only, from
// anywhere with serve --netperf-any-source).
func (t *test) guard(g guard) error {
	if g.netperf {
		t.netperf = true
		if !g.anySource || t.w.Datagram {
			t.allowed = workload.NewAllow([]netip.Addr{g.client})
		}
		return nil
	}
	if g.key == nil {
		return errors.New("no session key: the control handshake did not complete")
	}
	t.key, t.tag, t.ack = g.key, auth.ConnHello(g.key), auth.ConnAck(g.key)
	addrs := []netip.Addr{g.client}
	if len(t.setup.Sources) > spec.MaxFlows {
		return fmt.Errorf("sources: %d addresses, at most %d", len(t.setup.Sources), spec.MaxFlows)
	}
	for _, src := range t.setup.Sources {
		a, err := netip.ParseAddr(src)
		if err != nil {
			return fmt.Errorf("sources: %s is not an address", clip(src))
		}
		addrs = append(addrs, a)
	}
	t.allowed = workload.NewAllow(addrs)
	return nil
}

// plan checks the flows of a Setup and lays out its endpoints: one per
// distinct port of DataPorts, in order, or one at DataPort.
func (s *Server) plan(w *spec.Workload, m *proto.Setup) ([]*endpoint, int, error) {
	flows := max(m.Flows, 1)
	if m.Flows < 0 || flows > spec.MaxFlows {
		return nil, 0, fmt.Errorf("flows %d out of range 1-%d", m.Flows, spec.MaxFlows)
	}
	if flows > spec.MaxThreadFlows && !w.MuxClient {
		return nil, 0, fmt.Errorf("flows: at most %d for %s, got %d", spec.MaxThreadFlows, w, flows)
	}
	if m.DataPorts == nil {
		ep := &endpoint{fd: -1, port: m.DataPort, flows: flows, want: map[uint32]bool{}}
		for i := range flows {
			ep.want[uint32(i)] = true
		}
		return []*endpoint{ep}, flows, nil
	}
	if len(m.DataPorts) != flows {
		return nil, 0, fmt.Errorf("data ports: %d for %d flows", len(m.DataPorts), flows)
	}
	var eps []*endpoint
	byPort := map[int]*endpoint{}
	for i, p := range m.DataPorts {
		if p < 1 || p > 65535 {
			return nil, 0, fmt.Errorf("data port %d out of range 1-65535", p)
		}
		if err := s.lim.Port(p); err != nil {
			return nil, 0, err
		}
		ep := byPort[p]
		if ep == nil {
			ep = &endpoint{fd: -1, port: p, want: map[uint32]bool{}}
			byPort[p] = ep
			eps = append(eps, ep)
		}
		ep.flows++
		ep.want[uint32(i)] = true
	}
	return eps, flows, nil
}

// open makes one data endpoint: a listener (TCP) or a socket (UDP).
func (t *test) open(ep *endpoint, local netip.Addr) error {
	m := t.setup
	family := unix.AF_INET
	if local.Is6() {
		family = unix.AF_INET6
	}
	typ := unix.SOCK_STREAM
	if t.w.Datagram {
		typ = unix.SOCK_DGRAM
	}
	if !t.w.Endpoint() {
		if err := workload.NeedFDs(ep.flows+1, fmt.Sprintf("%d flows", ep.flows)); err != nil {
			return fmt.Errorf("flows: the server's process: %w", err)
		}
	}
	opts := sock.Options{NoDelay: m.NoDelay, SendBuffer: m.SendBuffer, RecvBuffer: m.RecvBuffer, ReuseAddr: true}
	bindTo := netip.AddrPortFrom(local, uint16(ep.port))
	fd, err := sock.Open(family, typ, opts, bindTo)
	if err != nil {
		return fmt.Errorf("data endpoint: %w", err)
	}
	if err := t.applyKnobs(fd, family); err != nil {
		sock.Close(fd)
		return err
	}
	if m.FastOpen {
		if err := sock.ListenFastOpen(fd, fastOpenQueue); err != nil {
			sock.Close(fd)
			return fmt.Errorf("data endpoint %s: %w", bindTo, err)
		}
	}
	if typ == unix.SOCK_STREAM {
		// Room for every flow's connection at once (the kernel caps it at
		// net.core.somaxconn).
		if err := unix.Listen(fd, max(1024, ep.flows)); err != nil {
			sock.Close(fd)
			return fmt.Errorf("data endpoint: listen %s: %w", bindTo, err)
		}
	}
	ep.fd = fd
	ep.port = int(sock.LocalAddr(fd).Port())
	return nil
}

// closeEndpoints closes the endpoints that are open.
func (t *test) closeEndpoints() {
	for _, ep := range t.eps {
		ep.tags.close()
		if ep.fd >= 0 {
			sock.Close(ep.fd)
			ep.fd = -1
		}
	}
}

// arrive counts a flow whose connection was accepted (and proved the tag).
func (t *test) arrive() {
	t.arrived.Add(1)
	t.lastIn.Store(time.Now().UnixNano())
}

// quietSince is when the test's set-up last made progress: Ready, or the
// arrival of a flow's connection since.
func (t *test) quietSince(ready time.Time) time.Time {
	if n := t.lastIn.Load(); n > ready.UnixNano() {
		return time.Unix(0, n)
	}
	return ready
}

// start marks the beginning of the measured interval, once every flow's
// connection has been accepted, so the flows that start together are all
// being served. The client has opened them all before it sends Start; a
// test whose connections have not all arrived by `by` does not start, and
// the error says how many did and what else came.
func (t *test) start(by time.Time) error {
	wait := time.NewTimer(max(time.Until(by), time.Millisecond))
	defer wait.Stop()
	select {
	case <-t.accepted:
	case <-t.done:
	case <-wait.C:
	}
	if n := t.arrived.Load(); (!t.netperf || !t.w.Endpoint()) && n < int64(t.flows) {
		t.stopped.Store(true)
		var msg string
		switch {
		case t.netperf:
			msg = fmt.Sprintf("flows: %d of the test's %d data connections arrived", n, t.flows)
		case t.w.Datagram:
			msg = fmt.Sprintf("flows: %d of the test's %d flows greeted their endpoint with the session's tag", n, t.flows)
		case t.w.PerTransaction:
			msg = fmt.Sprintf("flows: %d of the test's %d flows' first connections arrived and proved the session's tag", n, t.flows)
		default:
			msg = fmt.Sprintf("flows: %d of the test's %d data connections arrived and proved the session's tag", n, t.flows)
		}
		if k := t.strangers.Load(); k > 0 {
			msg += fmt.Sprintf(" (%d others were refused: a wrong or missing tag, or a stranger's)", k)
		}
		t.mu.Lock()
		err := t.err
		t.mu.Unlock()
		if err != nil {
			return fmt.Errorf("%s: %w", msg, err)
		}
		return errors.New(msg + " in time")
	}
	if t.setup.CPUUtil {
		t.cpuStart, t.cpuErr = cpu.SystemSnapshot()
	}
	t.startedAt = time.Now()
	close(t.begin)
	return nil
}

// errorMap is the test's failed calls by errno, with the data refused from
// strangers under "unauthenticated". Called with t.mu held.
func (t *test) errorMap() map[string]uint64 {
	m := t.counts.Errors.Map()
	if n := t.counts.Strangers + t.strangers.Load(); n > 0 {
		m["unauthenticated"] = n
	}
	return m
}

// stop ends the test's thread and returns the server's counts.
func (t *test) stop() proto.Results {
	elapsed := time.Since(t.startedAt)
	var util cpu.Utilization
	if t.setup.CPUUtil && t.cpuErr == nil {
		var end cpu.Snapshot
		if end, t.cpuErr = cpu.SystemSnapshot(); t.cpuErr == nil {
			util, t.cpuErr = cpu.SystemUtilization(t.cpuStart, end)
		}
	}
	t.stopped.Store(true)
	<-t.done
	for _, ep := range t.eps {
		// Still proving a tag when the test ended: never one of its flows.
		t.strangers.Add(uint64(len(ep.tags.waiting)))
		ep.tags.close()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c := &t.counts
	r := proto.Results{
		Transactions:     c.Transactions,
		BytesSent:        c.BytesSent,
		BytesReceived:    c.BytesReceived,
		Accepts:          c.Accepts,
		ElapsedNs:        int64(elapsed),
		Errors:           t.errorMap(),
		PeersMore:        c.Peers.More,
		SendCalls:        c.SendCalls,
		RecvCalls:        c.RecvCalls,
		FastOpenAccepted: c.FastOpen,
		Affinity:         t.affinity,
		Conns:            t.conns,
	}
	if t.setup.TCPInfo {
		r.TCP = proto.TCPSumsFrom(&c.TCP)
	}
	if t.knobs.ZeroCopy && t.w.ServerSends {
		r.ZeroCopy = &proto.ZeroCopy{Sends: c.ZeroCopy.Sends, Completed: c.ZeroCopy.Completed, Copied: c.ZeroCopy.Copied}
	}
	if t.setup.CPUUtil && t.cpuErr == nil {
		r.CPU = &proto.CPUReport{Util: util.Percent, NumCPU: util.NumCPU, ThreadNs: int64(t.threadTime), ElapsedNs: int64(elapsed)}
	}
	for i, a := range c.Peers.Addrs {
		r.Peers = append(r.Peers, proto.Peer{Addr: a.String(), Count: c.Peers.Counts[i]})
	}
	return r
}

// close ends the threads if they still run and frees the endpoints.
func (t *test) close() {
	t.stopped.Store(true)
	<-t.done
	t.closeEndpoints()
	t.release()
}

// info describes this server to clients.
func (s *Server) info() proto.ServerInfo {
	var u unix.Utsname
	kernel := ""
	if unix.Uname(&u) == nil {
		kernel = unix.ByteSliceToString(u.Release[:])
	}
	env := sysinfo.Collect(s.cfg.Version, s.cfg.Commit)
	return proto.ServerInfo{Version: s.cfg.Version, Kernel: kernel, Env: &env}
}
