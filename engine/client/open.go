package client

import (
	"fmt"
	"net/netip"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/datapath"
	"netscript/engine/hist"
	"netscript/engine/mux"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// localAddr is the source address and port flow i asked for, or an
// invalid AddrPort if it asked for neither.
func localAddr(s *spec.Spec, i int, remote netip.Addr) (netip.AddrPort, error) {
	addr, port := s.LocalFor(i)
	if addr == "" && port == 0 {
		return netip.AddrPort{}, nil
	}
	var ip netip.Addr
	if addr != "" {
		var err error
		ip, err = netip.ParseAddr(addr)
		if err != nil {
			return netip.AddrPort{}, spec.Bad("local", "not an IP address: %s", addr)
		}
		ip = ip.Unmap()
		if ip.Is4() != remote.Is4() {
			return netip.AddrPort{}, spec.Bad("local", "address %s is not of the server's family (%s)", addr, remote)
		}
	} else if remote.Is4() {
		ip = netip.IPv4Unspecified()
	} else {
		ip = netip.IPv6Unspecified()
	}
	return netip.AddrPortFrom(ip, uint16(port)), nil
}

// endpoint is where a test's flows go and what they prove there.
type endpoint struct {
	host netip.Addr // the server's data address (tests over IP)
	port int        // its data port; a flow of s.DataPorts has its own
	// name is the server's UNIX domain socket (tests over UNIX domain
	// sockets), and binds the names the flows' datagram sockets bind, one
	// per flow (unix.go).
	name  string
	binds []string
	key   []byte // the session's data key (consent.go); nil without a control connection
}

// newWorker opens every flow's data socket (outside the measured interval)
// toward ep, flow i at s.DataPorts[i] or else at ep.port, and parks the
// threads that will run the loops once startAt is called. With a session's
// data key (a test with a control connection) each flow first greets its
// endpoint and sends nothing more unless it is answered (consent.go). If
// one flow cannot be set up, nothing is left behind: the sockets opened so
// far are closed and the parked threads end, and the error names the flow.
func newWorker(s *spec.Spec, ep endpoint) (*worker, error) {
	n := s.FlowCount()
	w := &worker{kind: s.Workload, cpu: s.CPU, begin: make(chan struct{}), done: make(chan struct{}),
		fine: s.Rate > 0 || s.Open() || n > 1 || s.Workload.Bidir, seed: uint64(time.Now().UnixNano()),
		tcp: readsTCP(s) && !s.Workload.PerTransaction, mptcp: s.MPTCP() && !s.Workload.PerTransaction}
	if n > 1 {
		if err := workload.NeedFDs(n, fmt.Sprintf("%d flows", n)); err != nil {
			return nil, &spec.OptionError{Option: "flows", Err: err}
		}
	}
	if s.Workload.Unix {
		var err error
		if w.unixRemote, err = unixRemote(ep.name); err != nil {
			return nil, err
		}
	}
	fail := func(i int, err error) (*worker, error) {
		w.close()
		if n > 1 {
			return nil, &spec.FlowError{Flow: i, Flows: n, Err: err}
		}
		return nil, err
	}
	for i := 0; i < n; i++ {
		dp := ep.port
		if len(s.DataPorts) > 0 {
			dp = s.DataPorts[i]
		}
		data := netip.AddrPortFrom(ep.host, uint16(dp))
		local, err := localAddr(s, i, ep.host)
		if err != nil {
			return fail(i, err)
		}
		f := &flow{index: i, fd: -1, dataPort: dp, ready: make(chan error, 1), done: make(chan struct{})}
		if i < len(ep.binds) {
			f.localName = ep.binds[i]
		}
		if err := w.open(s, f, data, local, ep.key); err != nil {
			if f.fd >= 0 {
				sock.Close(f.fd)
			}
			return fail(i, err)
		}
		if f.fd >= 0 {
			f.local = sock.LocalAddr(f.fd)
			f.peer = sock.PeerAddr(f.fd)
			if s.Workload.Unix {
				f.localName, f.peerName = sock.LocalName(f.fd), sock.PeerName(f.fd)
			}
		}
		w.flows = append(w.flows, f)
		if s.Multiplexed() {
			continue
		}
		for _, g := range w.parts(f) {
			g.running = true
			go w.run(g)
			if err := <-g.ready; err != nil {
				return fail(i, &spec.OptionError{Option: "cpu", Err: err})
			}
		}
	}
	if s.Multiplexed() {
		if err := w.prepareMux(s); err != nil {
			w.close()
			return nil, err
		}
	}
	return w, nil
}

// parts returns the flows that run flow f's loop: f, and for a loop of
// several parts (a test both ways) a flow for each further part, on f's
// socket, added to the worker after f.
func (w *worker) parts(f *flow) []*flow {
	p, ok := f.loop.(workload.Parted)
	if !ok {
		return []*flow{f}
	}
	loops := p.Parts()
	f.loop = loops[0]
	out := []*flow{f}
	for j, l := range loops[1:] {
		g := &flow{index: f.index, part: j + 1, fd: -1, loop: l, local: f.local, peer: f.peer, localName: f.localName,
			peerName: f.peerName, dataPort: f.dataPort, ready: make(chan error, 1), done: make(chan struct{})}
		w.flows = append(w.flows, g)
		out = append(out, g)
	}
	return out
}

// loopOf is the shared state flow i's loop starts with.
func (w *worker) loopOf(s *spec.Spec, i int) workload.Loop {
	loop := workload.Loop{Limits: workload.Limits{Duration: s.Duration, Transactions: s.Transactions}, Stop: &w.stop}
	if s.Workload.RR() {
		loop.Hist = hist.New()
	}
	if s.Workload.Paced() {
		loop.Pace = workload.NewPacer(s.Rate)
	}
	loop.Arrive = w.arrival(s, i)
	if s.Interval > 0 {
		loop.Interim = workload.NewInterim(s.Interval, s.Duration)
	}
	return loop
}

// open makes flow f's data socket (unless its workload opens a connection
// per transaction) and its loop, or its mux.Flow.
func (w *worker) open(s *spec.Spec, f *flow, data netip.AddrPort, local netip.AddrPort, key []byte) error {
	k := s.Workload
	cf := &datapath.ClientFlow{Spec: s, Loop: w.loopOf(s, f.index), FD: -1, Family: familyOf(data.Addr()), Remote: sock.NewAddr(data)}
	if k.Unix {
		cf.Family, cf.Remote = unix.AF_UNIX, w.unixRemote
	}
	if k.PerTransaction {
		if err := w.perTransaction(s, f, cf, data, local); err != nil {
			return err
		}
		if key != nil {
			if err := greetEndpoint(cf.Family, local, cf.Remote, key, s.ConnectTimeout); err != nil {
				return err
			}
		}
	} else {
		fd, err := w.connect(s, f, cf, local, key)
		if err != nil {
			return err
		}
		f.fd, cf.FD = fd, fd
	}
	if k.Bulk {
		if k.ClientSends() {
			w.sendSize = s.SendSize
			if w.sendSize == 0 {
				w.sendSize = spec.DefaultSendSize(k, w.granted.Send)
			}
		} else {
			w.recvSize = s.RecvSize
			if w.recvSize == 0 {
				w.recvSize = spec.DefaultRecvSize(k, w.granted.Recv)
			}
		}
		cf.SendSize, cf.RecvSize = w.sendSize, w.recvSize
	}
	if k.Bidir {
		// Each direction has its own size: the client's sends and its
		// receives.
		w.sendSize, w.recvSize = s.SendSize, s.RecvSize
		if w.sendSize == 0 {
			w.sendSize = spec.DefaultSendSize(k, w.granted.Send)
		}
		if w.recvSize == 0 {
			w.recvSize = spec.DefaultRecvSize(k, w.granted.Recv)
		}
		cf.SendSize, cf.RecvSize = w.sendSize, w.recvSize
	}
	if s.Multiplexed() {
		f.m = &mux.Flow{FD: cf.FD, Local: cf.Local, Remote: cf.Remote, Walk: cf.Walk, Hist: cf.Loop.Hist}
		return nil
	}
	loop, err := datapath.Of(k).Client(cf)
	if err != nil {
		return err
	}
	f.loop = loop
	return nil
}

// connect makes flow f's one data socket: a TCP or UNIX domain stream
// connection, or a connected UDP or UNIX domain datagram socket, which
// with a session's data key has greeted its endpoint and been answered
// (consent.go). A UNIX domain datagram socket does not greet: the server
// named its socket over the session's control connection, and takes the
// flow's datagrams only from the name the flow declared there.
func (w *worker) connect(s *spec.Spec, f *flow, cf *datapath.ClientFlow, local netip.AddrPort, key []byte) (int, error) {
	flow := uint32(f.index)
	typ := unix.SOCK_STREAM
	if s.Workload.Datagram {
		typ = unix.SOCK_DGRAM
	}
	fd, err := sock.Open(cf.Family, typ, sock.Options{NoDelay: s.NoDelay, SendBuffer: s.SendBuffer, RecvBuffer: s.RecvBuffer,
		MPTCP: s.MPTCP()}, local)
	if err != nil {
		return -1, protocolErr(localErr(err, s))
	}
	if err := applyKnobs(s, fd, cf.Family); err != nil {
		sock.Close(fd)
		return -1, err
	}
	if s.Workload.Unix {
		if err := bindUnix(fd, f.localName); err != nil {
			sock.Close(fd)
			return -1, err
		}
	}
	if typ == unix.SOCK_DGRAM {
		if en := sock.Connect(fd, cf.Remote); en != 0 {
			sock.Close(fd)
			return -1, &sock.OpError{Op: "connect", Addr: cf.Remote.String(), Err: en}
		}
		w.granted = sock.Granted(fd)
		if key != nil && !s.Workload.Unix {
			if err := greetDatagrams(fd, key, flow, cf.Remote, s.ConnectTimeout); err != nil {
				sock.Close(fd)
				return -1, err
			}
		}
		return fd, nil
	}
	// What the kernel granted at creation, as netperf reports it (the
	// autotuned sizes of a connected socket grow as it runs).
	w.granted = sock.Granted(fd)
	if err := sock.Dial(fd, cf.Remote, s.ConnectTimeout); err != nil {
		sock.Close(fd)
		return -1, err
	}
	if key != nil {
		// The connection and the endpoint show each other they belong to
		// the session before anything else (outside the interval).
		if err := greetConn(fd, key, cf.Remote, s.ConnectTimeout); err != nil {
			sock.Close(fd)
			return -1, err
		}
	}
	return fd, nil
}

// perTransaction prepares a flow whose workload opens a connection per
// transaction: its source address and port walk. A socket made like the
// flow's connections says what the kernel grants them and, with `local`,
// that the address can be bound, so a bad one fails now and not as a count
// of errors.
func (w *worker) perTransaction(s *spec.Spec, f *flow, cf *datapath.ClientFlow, data, local netip.AddrPort) error {
	probeLocal := netip.AddrPort{}
	if local.IsValid() {
		probeLocal = netip.AddrPortFrom(local.Addr(), 0)
	}
	fd, err := sock.Open(cf.Family, unix.SOCK_STREAM, sock.Options{ReuseAddr: !s.Workload.Unix, SendBuffer: s.SendBuffer,
		RecvBuffer: s.RecvBuffer, MPTCP: s.MPTCP()}, probeLocal)
	if err != nil {
		return protocolErr(localErr(err, s))
	}
	w.granted = sock.Granted(fd)
	err = applyKnobs(s, fd, cf.Family) // refused now, not once per connection
	sock.Close(fd)
	if err != nil {
		return err
	}
	if r := s.LocalPortRange; r != nil {
		cf.Walk = workload.NewPortWalk(r.Lo, r.Hi, workload.WalkStart(r.Lo, r.Hi, f.index, s.FlowCount()), int(data.Port()))
		if !local.IsValid() {
			local = netip.AddrPortFrom(unspecified(data.Addr()), 0)
		}
	}
	if local.IsValid() {
		cf.Local = sock.NewAddr(local) // each flow its own: a walk changes its port
	}
	f.local, f.peer = local, data
	return nil
}

// unspecified is the any-address of a's family.
func unspecified(a netip.Addr) netip.Addr {
	if a.Is4() {
		return netip.IPv4Unspecified()
	}
	return netip.IPv6Unspecified()
}

// prepareMux sets the multiplexed flows up on their epoll threads.
func (w *worker) prepareMux(s *spec.Spec) error {
	for _, f := range w.flows {
		w.mflows = append(w.mflows, f.m)
	}
	cfg := &mux.Config{Request: s.Request, Response: s.Response, Burst: s.Burst,
		Limits: workload.Limits{Duration: s.Duration, Transactions: s.Transactions}, Stop: &w.stop,
		Threads: muxThreads(len(w.flows)), Remote: w.mflows[0].Remote, Proto: datapath.Proto(s), NoDelay: s.NoDelay,
		SendBuffer: s.SendBuffer, RecvBuffer: s.RecvBuffer, CPU: s.CPU, Knobs: &s.Knobs}
	var err error
	w.mux, err = datapath.Of(s.Workload).Mux(w.mflows, cfg)
	if err != nil && s.CPU != nil {
		return &spec.OptionError{Option: "cpu", Err: err}
	}
	return err
}

// localErr names the `local` option when binding the source address failed.
func localErr(err error, s *spec.Spec) error {
	if s.Local != "" || s.LocalPort != 0 || len(s.Locals) > 0 || len(s.LocalPorts) > 0 {
		return &spec.OptionError{Option: "local", Err: err}
	}
	return err
}

// sendTag writes a session's data tag on a new data connection within
// timeout.
func sendTag(fd int, tag []byte, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for len(tag) > 0 {
		n, en := sock.Write(fd, tag)
		if en == unix.EAGAIN || en == unix.EINTR {
			if time.Now().After(deadline) {
				return unix.ETIMEDOUT
			}
			continue
		}
		if en != 0 {
			return en
		}
		tag = tag[n:]
	}
	return nil
}
