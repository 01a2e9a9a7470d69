package client

import (
	"fmt"
	"net/netip"
	"time"

	"golang.org/x/sys/unix"

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
			return netip.AddrPort{}, &spec.OptionError{Option: "local", Msg: "not an IP address: " + addr}
		}
		ip = ip.Unmap()
		if ip.Is4() != remote.Is4() {
			return netip.AddrPort{}, &spec.OptionError{Option: "local",
				Msg: "address " + addr + " is not of the server's family (" + remote.String() + ")"}
		}
	} else if remote.Is4() {
		ip = netip.IPv4Unspecified()
	} else {
		ip = netip.IPv6Unspecified()
	}
	return netip.AddrPortFrom(ip, uint16(port)), nil
}

// newWorker opens every flow's data socket (outside the measured interval)
// toward host, flow i at s.DataPorts[i] or else at port, and parks the
// threads that will run the loops once startAt is called. If one flow
// cannot be set up, nothing is left behind: the sockets opened so far are
// closed and the parked threads end, and the error names the flow.
func newWorker(s *spec.Spec, host netip.Addr, port int, tag []byte) (*worker, error) {
	n := s.FlowCount()
	w := &worker{kind: s.Workload, cpu: s.CPU, begin: make(chan struct{}), done: make(chan struct{}),
		fine: s.Rate > 0 || n > 1}
	if n > 1 {
		if err := workload.NeedFDs(n, fmt.Sprintf("%d flows", n)); err != nil {
			return nil, &spec.OptionError{Option: "flows", Msg: err.Error()}
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
		dp := port
		if len(s.DataPorts) > 0 {
			dp = s.DataPorts[i]
		}
		data := netip.AddrPortFrom(host, uint16(dp))
		local, err := localAddr(s, i, host)
		if err != nil {
			return fail(i, err)
		}
		f := &flow{index: i, fd: -1, dataPort: dp, ready: make(chan error, 1), done: make(chan struct{})}
		if err := w.open(s, f, data, local, tag); err != nil {
			if f.fd >= 0 {
				sock.Close(f.fd)
			}
			return fail(i, err)
		}
		if f.fd >= 0 {
			f.local = sock.LocalAddr(f.fd)
			f.peer = sock.PeerAddr(f.fd)
		}
		w.flows = append(w.flows, f)
		if s.Multiplexed() {
			continue
		}
		f.running = true
		go w.run(f)
		if err := <-f.ready; err != nil {
			return fail(i, &spec.OptionError{Option: "cpu", Msg: err.Error()})
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

// loopOf is the shared part of a flow's loop.
func loopOf(s *spec.Spec) workload.Loop {
	loop := workload.Loop{Limits: workload.Limits{Duration: s.Duration, Transactions: s.Transactions}}
	if s.Workload.RR() {
		loop.Hist = hist.New()
	}
	if s.Workload != spec.TCPMaerts { // TCP_MAERTS's sends are the server's to pace
		loop.Pace = workload.NewPacer(s.Rate)
	}
	if s.Interval > 0 {
		loop.Interim = workload.NewInterim(s.Interval, s.Duration)
	}
	return loop
}

// open makes flow f's data socket(s) and its loop (or mux.Flow).
func (w *worker) open(s *spec.Spec, f *flow, data netip.AddrPort, local netip.AddrPort, tag []byte) error {
	fam := familyOf(data.Addr())
	remote := sock.NewAddr(data)
	opts := sock.Options{NoDelay: s.NoDelay, SendBuffer: s.SendBuffer, RecvBuffer: s.RecvBuffer}
	loop := loopOf(s)
	loop.Stop = &w.stop
	switch s.Workload {
	case spec.TCPRR, spec.TCPStream, spec.TCPMaerts:
		fd, err := sock.Open(fam, unix.SOCK_STREAM, opts, local)
		if err != nil {
			return localErr(err, s)
		}
		// What the kernel granted at creation, as netperf reports it (the
		// autotuned sizes of a connected socket grow as it runs).
		g := sock.Granted(fd)
		w.granted = g
		if err := sock.Dial(fd, remote, s.ConnectTimeout); err != nil {
			sock.Close(fd)
			return err
		}
		if tag != nil {
			// An authenticated session's data connection proves it belongs
			// to the session before anything else (outside the interval).
			if err := sendTag(fd, tag, s.ConnectTimeout); err != nil {
				sock.Close(fd)
				return &sock.OpError{Op: "send data tag", Addr: remote.String(), Err: err}
			}
		}
		f.fd = fd
		switch s.Workload {
		case spec.TCPRR:
			if s.Multiplexed() {
				f.m = &mux.Flow{FD: fd, Hist: hist.New()}
				break
			}
			f.rr = &workload.RR{Loop: loop, FD: fd, Request: s.Request, Response: s.Response, Burst: s.Burst}
			f.rr.Prepare()
		case spec.TCPStream:
			size := s.SendSize
			if size == 0 {
				size = spec.DefaultSendSize(s.Workload, g.Send)
			}
			f.stream = &workload.Stream{Loop: loop, FD: fd, SendSize: size, Bytes: s.Bytes, Drain: streamDrain}
			f.stream.Prepare()
		case spec.TCPMaerts:
			size := s.RecvSize
			if size == 0 {
				size = spec.DefaultRecvSize(s.Workload, g.Recv)
			}
			f.maerts = &workload.Maerts{Loop: loop, FD: fd, RecvSize: size, Bytes: s.Bytes}
			f.maerts.Prepare()
		}
	case spec.UDPRR, spec.UDPStream:
		return w.openUDP(s, f, fam, remote, opts, local, loop)
	case spec.TCPCRR:
		return w.openCRR(s, f, fam, data, local, loop)
	}
	return nil
}

// openUDP makes a UDP flow's connected socket and its loop.
func (w *worker) openUDP(s *spec.Spec, f *flow, fam int, remote *sock.Addr, opts sock.Options, local netip.AddrPort, loop workload.Loop) error {
	fd, err := sock.Open(fam, unix.SOCK_DGRAM, opts, local)
	if err != nil {
		return localErr(err, s)
	}
	if en := sock.Connect(fd, remote); en != 0 {
		sock.Close(fd)
		return &sock.OpError{Op: "connect", Addr: remote.String(), Err: en}
	}
	f.fd = fd
	w.granted = sock.Granted(fd)
	if s.Workload == spec.UDPRR {
		f.udp = &workload.UDPRR{Loop: loop, FD: fd, Request: s.Request, Response: s.Response, Burst: s.Burst, Timeout: s.Timeout}
		return f.udp.Prepare()
	}
	if err := sock.RecvErr(fd, fam); err != nil {
		return err
	}
	size := s.SendSize
	if size == 0 {
		size = spec.DefaultSendSize(s.Workload, w.granted.Send)
	}
	f.udps = &workload.UDPStream{Loop: loop, FD: fd, SendSize: size, Bytes: s.Bytes}
	f.udps.Prepare()
	return nil
}

// openCRR prepares a TCP_CRR flow: its loop (or mux.Flow), its source
// address and port walk. A socket made like the flow's connections says
// what the kernel grants them and, with `local`, that the address can be
// bound, so a bad one fails now and not as a count of errors.
func (w *worker) openCRR(s *spec.Spec, f *flow, fam int, data, local netip.AddrPort, loop workload.Loop) error {
	probeLocal := netip.AddrPort{}
	if local.IsValid() {
		probeLocal = netip.AddrPortFrom(local.Addr(), 0)
	}
	fd, err := sock.Open(fam, unix.SOCK_STREAM, sock.Options{ReuseAddr: true, SendBuffer: s.SendBuffer, RecvBuffer: s.RecvBuffer}, probeLocal)
	if err != nil {
		return localErr(err, s)
	}
	w.granted = sock.Granted(fd)
	sock.Close(fd)
	var walk *workload.PortWalk
	if r := s.LocalPortRange; r != nil {
		walk = workload.NewPortWalk(r.Lo, r.Hi, workload.WalkStart(r.Lo, r.Hi, f.index, s.FlowCount()), int(data.Port()))
		if !local.IsValid() {
			local = netip.AddrPortFrom(unspecified(data.Addr()), 0)
		}
	}
	var la *sock.Addr
	if local.IsValid() {
		la = sock.NewAddr(local) // each flow its own: a walk changes its port
	}
	f.local, f.peer = local, data
	remote := sock.NewAddr(data)
	if s.Multiplexed() {
		f.m = &mux.Flow{Local: la, Remote: remote, Walk: walk, Hist: hist.New()}
		return nil
	}
	f.crr = &workload.CRR{Loop: loop, Remote: remote, Local: la, Walk: walk, NoDelay: s.NoDelay, Request: s.Request,
		Response: s.Response, FastOpen: s.FastOpen, SendBuffer: s.SendBuffer, RecvBuffer: s.RecvBuffer}
	f.crr.Prepare()
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
	cfg := &mux.Config{Request: s.Request, Response: s.Response, Burst: s.Burst,
		Limits: workload.Limits{Duration: s.Duration, Transactions: s.Transactions}, Stop: &w.stop,
		Threads: muxThreads(len(w.flows)), NoDelay: s.NoDelay, SendBuffer: s.SendBuffer, RecvBuffer: s.RecvBuffer, CPU: s.CPU}
	for _, f := range w.flows {
		w.mflows = append(w.mflows, f.m)
	}
	var err error
	if s.Workload == spec.TCPCRR {
		cfg.Remote = w.mflows[0].Remote
		w.mux, err = mux.PrepareCRR(w.mflows, cfg)
	} else {
		w.mux, err = mux.PrepareRR(w.mflows, cfg)
	}
	if err != nil && s.CPU != nil {
		return &spec.OptionError{Option: "cpu", Msg: err.Error()}
	}
	return err
}

// streamDrain bounds how long TCP_STREAM waits for the server to read what
// is in flight and close.
const streamDrain = 10 * time.Second

// localErr names the `local` option when binding the source address failed.
func localErr(err error, s *spec.Spec) error {
	if s.Local != "" || s.LocalPort != 0 || len(s.Locals) > 0 || len(s.LocalPorts) > 0 {
		return &spec.OptionError{Option: "local", Msg: err.Error()}
	}
	return err
}

// sendTag writes an authenticated session's data tag on a new data
// connection within timeout.
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
