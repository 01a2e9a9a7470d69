package server

import (
	"fmt"
	"net/netip"
	"runtime"
	"sync"

	"netscript/engine/cpu"
	"netscript/engine/datapath"
	"netscript/engine/mux"
	"netscript/engine/proto"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// How a test's flows are served:
//
//   - A workload served per endpoint (a connection per transaction, or
//     UDP: spec.Workload.Endpoint): one thread per endpoint serves every
//     flow that comes to it (an accept loop, or one socket for all
//     datagrams), as one netserver serves the netperfs aimed at its port.
//   - The others, with up to spec.ThreadedFlows flows or without a
//     MuxServer: each endpoint's thread accepts its flows' connections and
//     serves each on a thread of its own (the last on itself), the
//     one-connection server of netserver times N.
//   - A workload with a MuxServer (TCP_RR, TCP_STREAM, TCP_MAERTS) and
//     more flows: the connections are accepted and then served by a few
//     epoll threads (package mux), so a client's flows cost the daemon
//     descriptors, not threads.

// muxThreads is how many epoll threads serve a multiplexed test (TCP_RR and
// the TCP streams).
func muxThreads(flows int) int { return max(1, min(runtime.NumCPU(), 8, flows)) }

// multiplexed reports whether the test's connections are served by epoll
// threads.
func (t *test) multiplexed() bool { return t.w.MuxServer && t.flows > spec.ThreadedFlows }

// threadCount is how many data-path threads the test runs at most.
func (t *test) threadCount() int {
	switch {
	case t.w.Endpoint():
		return len(t.eps)
	case t.multiplexed():
		return len(t.eps) + muxThreads(t.flows)
	}
	return t.flows
}

// serve runs the test's serving threads and returns when they have all
// ended.
func (t *test) serve() {
	defer close(t.done)
	var wg sync.WaitGroup
	switch {
	case t.w.Endpoint() && t.netperf:
		close(t.accepted)
		check := t.sharedCheck()
		for _, ep := range t.eps {
			wg.Go(func() { t.thread(func() { t.serveEndpoint(ep, check) }) })
		}
	case t.w.Endpoint():
		// accepted closes once every endpoint's flows have greeted it (or
		// its greeting ended), so Start finds them all in.
		var left sync.WaitGroup
		left.Add(len(t.eps))
		go func() { left.Wait(); close(t.accepted) }()
		check := t.sharedCheck()
		for _, ep := range t.eps {
			wg.Go(func() { t.thread(func() { t.serveGreeted(ep, check, left.Done) }) })
		}
	case t.multiplexed():
		t.serveMux()
	default:
		// accepted closes once every flow's thread is about to serve
		// (or its endpoint gave up), so Start finds them all listening.
		var left sync.WaitGroup
		left.Add(t.flows)
		go func() { left.Wait(); close(t.accepted) }()
		for _, ep := range t.eps {
			wg.Go(func() { t.thread(func() { t.acceptAndServe(ep, &wg, &left) }) })
		}
	}
	wg.Wait()
}

// thread runs fn as a data-path thread: locked, bound to remote_cpu if
// asked, with its CPU time added to the test's.
func (t *test) thread(fn func()) {
	runtime.LockOSThread() // never unlocked: the thread ends with the test, and its binding with it
	m := t.setup
	if m.CPU != nil {
		if err := cpu.Bind(*m.CPU); err != nil {
			t.fail(fmt.Errorf("remote_cpu: %w", err))
			return
		}
	}
	aff, _ := cpu.Affinity()
	t0, err0 := cpu.ThreadTime()
	fn()
	t1, err1 := cpu.ThreadTime()
	t.mu.Lock()
	if t.affinity == nil {
		t.affinity = aff
	}
	if err0 == nil && err1 == nil {
		t.threadTime += t1.Sub(t0).Total()
	}
	t.mu.Unlock()
}

// fail records the test's first error.
func (t *test) fail(err error) {
	t.mu.Lock()
	if t.err == nil {
		t.err = err
	}
	t.mu.Unlock()
}

// add merges one serving loop's counts into the test's.
func (t *test) add(c *workload.ServerCounts, err error) {
	t.mu.Lock()
	t.counts.Merge(c)
	if t.err == nil && err != nil {
		t.err = err
	}
	t.mu.Unlock()
}

// addConn merges the counts of one connection, with its peer.
func (t *test) addConn(peer string, c *workload.ServerCounts, err error) {
	t.add(c, err)
	t.mu.Lock()
	t.conns = append(t.conns, proto.ConnCounts{Peer: peer, Transactions: c.Transactions, BytesSent: c.BytesSent,
		BytesReceived: c.BytesReceived, SendCalls: c.SendCalls, RecvCalls: c.RecvCalls, TCP: proto.TCPSumsFrom(&c.TCP)})
	t.mu.Unlock()
}

// sharedCheck makes the --max-conn-rate check safe for several accept
// loops of one test: they share one bucket. It is called once per batch of
// accepts, so the lock costs nothing per connection.
func (t *test) sharedCheck() func() error {
	if t.check == nil || len(t.eps) == 1 {
		return t.check
	}
	var mu sync.Mutex
	return func() error {
		mu.Lock()
		defer mu.Unlock()
		return t.check()
	}
}

// params is what every server loop of the test is made from; FD is left
// to the caller.
func (t *test) params() *datapath.ServerParams {
	m := t.setup
	return &datapath.ServerParams{FD: -1, Request: m.Request, Response: m.Response, Burst: m.Burst, SendSize: t.sendSize,
		RecvSize: t.recvSize, Bytes: m.Bytes, Rate: m.Rate, FastOpen: m.FastOpen, Allowed: t.allowed, Stop: &t.stopped,
		EndOnEmpty: t.netperf, Transactions: t.npCount(), TCPInfo: m.TCPInfo, QuickAck: t.knobs.QuickAck,
		ZeroCopy: t.knobs.ZeroCopy}
}

// npCount is the count of transactions that ends a netperf test served
// per endpoint (netperf -l -N); 0 for native tests, whose clients end them.
func (t *test) npCount() uint64 {
	if !t.netperf {
		return 0
	}
	return t.setup.Transactions
}

// serveEndpoint runs the one loop that serves every flow of an endpoint
// (a workload served per endpoint: spec.Workload.Endpoint).
func (t *test) serveEndpoint(ep *endpoint, check func() error) {
	p := t.params()
	p.FD, p.Check = ep.fd, check
	if ep.allowed != nil {
		p.Allowed = ep.allowed // a UDP endpoint's greeted flows
	}
	srv := datapath.Of(t.w).Server(p)
	srv.Run()
	o := srv.Outcome()
	t.add(&o.Counts, o.Err)
}

// acceptAndServe accepts ep's flows: each connection but the last is
// served on a new thread, the last on this one. left counts down once per
// flow whose thread is about to serve (all that remain if accepting ends).
func (t *test) acceptAndServe(ep *endpoint, wg *sync.WaitGroup, left *sync.WaitGroup) {
	var peer sock.Addr
	for k := 0; k < ep.flows; k++ {
		fd := t.accept(ep, &peer)
		if fd < 0 {
			for ; k < ep.flows; k++ {
				left.Done()
			}
			return
		}
		ap := peer.AddrPort()
		if k == ep.flows-1 {
			t.serveConn(fd, ap, left.Done)
			return
		}
		wg.Go(func() { t.thread(func() { t.serveConn(fd, ap, left.Done) }) })
	}
}

// serveConn runs the loop of one connection of a workload served per
// connection on fd, and closes it; ready is called just before the loop.
func (t *test) serveConn(fd int, peer netip.AddrPort, ready func()) {
	defer sock.Close(fd)
	p := t.params()
	p.FD = fd
	srv := datapath.Of(t.w).Server(p)
	var tcp workload.ServerCounts
	if err := t.applyKnobs(fd, 0); err != nil {
		t.fail(err)
	}
	ready()
	t.connTCP(fd, srv.Run, &tcp)
	if t.netperf { // netperf reports the buffers the kernel tuned to by the end
		g := sock.Granted(fd)
		t.mu.Lock()
		t.npBufs = proto.Buffers{Send: g.Send, Recv: g.Recv}
		t.mu.Unlock()
	}
	o := srv.Outcome()
	c, err := o.Counts, o.Err
	c.TCP = tcp.TCP
	c.Accepts = 1
	c.Peers.Add(peer.Addr())
	t.addConn(peer.String(), &c, err)
}

// serveMux accepts every flow's connection, then serves them all on a few
// epoll threads.
func (t *test) serveMux() {
	var mu sync.Mutex
	var conns []*mux.Conn
	var peers []netip.AddrPort
	var wg sync.WaitGroup
	for _, ep := range t.eps {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var peer sock.Addr
			for k := 0; k < ep.flows; k++ {
				fd := t.accept(ep, &peer)
				if fd < 0 {
					return
				}
				mu.Lock()
				conns = append(conns, &mux.Conn{FD: fd})
				peers = append(peers, peer.AddrPort())
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	defer func() {
		for _, c := range conns {
			sock.Close(c.FD)
		}
	}()
	if len(conns) == 0 {
		close(t.accepted)
		return
	}
	m := t.setup
	spans := t.beginMuxTCP(conns)
	// accepted closes once the epoll threads wait for requests.
	st := datapath.Of(t.w).MuxServer(conns, mux.ServeConfig{Request: m.Request, Response: m.Response, RecvSize: t.recvSize,
		SendSize: t.sendSize, Bytes: m.Bytes, Rate: m.Rate, Threads: muxThreads(len(conns)),
		Stop: &t.stopped, CPU: m.CPU, Ready: func() { close(t.accepted) }, QuickAck: t.knobs.QuickAck})
	if st.Err != nil {
		t.fail(fmt.Errorf("remote_cpu: %w", st.Err))
	}
	t.endMuxTCP(conns, spans)
	for i, c := range conns {
		c.Counts.Accepts = 1
		c.Counts.Peers.Add(peers[i].Addr())
		t.addConn(peers[i].String(), &c.Counts, c.Err)
	}
	t.mu.Lock()
	t.threadTime += st.CPUTime
	if t.affinity == nil {
		t.affinity = st.Affinity
	}
	t.mu.Unlock()
}
