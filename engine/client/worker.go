package client

import (
	"net/netip"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/cpu"
	"netscript/engine/hist"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// worker is the client's data path for one test: its sockets, its loop and
// the OS thread that runs the loop.
type worker struct {
	kind    spec.Workload
	fd      int // the data socket; -1 for TCP_CRR
	rr      *workload.RR
	crr     *workload.CRR
	udp     *workload.UDPRR
	stream  *workload.Stream
	maerts  *workload.Maerts
	udps    *workload.UDPStream
	stop    atomic.Bool
	ready   chan error // the thread is bound and parked, or why not
	begin   chan struct{}
	done    chan struct{}
	local   netip.AddrPort
	peer    netip.AddrPort
	granted sock.Buffers
	cpu     *int
	rate    float64

	// Set by the thread before done is closed.
	affinity   []int
	threadTime time.Duration
}

func familyOf(a netip.Addr) int {
	if a.Is4() {
		return unix.AF_INET
	}
	return unix.AF_INET6
}

// localAddr is the source address and port a test asked for, or an invalid
// AddrPort if it asked for neither.
func localAddr(s *spec.Spec, remote netip.Addr) (netip.AddrPort, error) {
	if s.Local == "" && s.LocalPort == 0 {
		return netip.AddrPort{}, nil
	}
	var ip netip.Addr
	if s.Local != "" {
		var err error
		ip, err = netip.ParseAddr(s.Local)
		if err != nil {
			return netip.AddrPort{}, &spec.OptionError{Option: "local", Msg: "not an IP address: " + s.Local}
		}
		ip = ip.Unmap()
		if ip.Is4() != remote.Is4() {
			return netip.AddrPort{}, &spec.OptionError{Option: "local",
				Msg: "address " + s.Local + " is not of the server's family (" + remote.String() + ")"}
		}
	} else if remote.Is4() {
		ip = netip.IPv4Unspecified()
	} else {
		ip = netip.IPv6Unspecified()
	}
	return netip.AddrPortFrom(ip, uint16(s.LocalPort)), nil
}

// newWorker opens the data sockets (outside the measured interval) and
// parks a locked thread, bound to its CPU if one was asked for, that will
// run the loop once start is called.
func newWorker(s *spec.Spec, data netip.AddrPort) (*worker, error) {
	w := &worker{kind: s.Workload, fd: -1, cpu: s.CPU, rate: s.Rate,
		ready: make(chan error, 1), begin: make(chan struct{}), done: make(chan struct{})}
	local, err := localAddr(s, data.Addr())
	if err != nil {
		return nil, err
	}
	loop := workload.Loop{Limits: workload.Limits{Duration: s.Duration, Transactions: s.Transactions}, Stop: &w.stop}
	if s.Workload.RR() {
		loop.Hist = hist.New()
	}
	if s.Workload != spec.TCPMaerts { // TCP_MAERTS's sends are the server's to pace
		loop.Pace = workload.NewPacer(s.Rate)
	}
	if s.Interval > 0 {
		loop.Interim = workload.NewInterim(s.Interval, s.Duration)
	}
	if err := w.open(s, data, local, loop); err != nil {
		return nil, err
	}
	if w.fd >= 0 {
		w.local = sock.LocalAddr(w.fd)
		w.peer = sock.PeerAddr(w.fd)
	}
	go w.run()
	if err := <-w.ready; err != nil {
		w.close()
		return nil, &spec.OptionError{Option: "cpu", Msg: err.Error()}
	}
	return w, nil
}

// open makes the data socket(s) and the loop of the workload.
func (w *worker) open(s *spec.Spec, data netip.AddrPort, local netip.AddrPort, loop workload.Loop) error {
	fam := familyOf(data.Addr())
	remote := sock.NewAddr(data)
	opts := sock.Options{NoDelay: s.NoDelay, SendBuffer: s.SendBuffer, RecvBuffer: s.RecvBuffer}
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
		w.fd = fd
		switch s.Workload {
		case spec.TCPRR:
			w.rr = &workload.RR{Loop: loop, FD: fd, Request: s.Request, Response: s.Response, Burst: s.Burst}
			w.rr.Prepare()
		case spec.TCPStream:
			size := s.SendSize
			if size == 0 {
				size = spec.DefaultSendSize(s.Workload, g.Send)
			}
			w.stream = &workload.Stream{Loop: loop, FD: fd, SendSize: size, Bytes: s.Bytes, Drain: streamDrain}
			w.stream.Prepare()
		case spec.TCPMaerts:
			size := s.RecvSize
			if size == 0 {
				size = spec.DefaultRecvSize(s.Workload, g.Recv)
			}
			w.maerts = &workload.Maerts{Loop: loop, FD: fd, RecvSize: size, Bytes: s.Bytes}
			w.maerts.Prepare()
		}
	case spec.UDPRR, spec.UDPStream:
		fd, err := sock.Open(fam, unix.SOCK_DGRAM, opts, local)
		if err != nil {
			return localErr(err, s)
		}
		if en := sock.Connect(fd, remote); en != 0 {
			sock.Close(fd)
			return &sock.OpError{Op: "connect", Addr: remote.String(), Err: en}
		}
		w.fd = fd
		w.granted = sock.Granted(fd)
		if s.Workload == spec.UDPRR {
			w.udp = &workload.UDPRR{Loop: loop, FD: fd, Request: s.Request, Response: s.Response, Burst: s.Burst, Timeout: s.Timeout}
			if err := w.udp.Prepare(); err != nil {
				sock.Close(fd)
				return err
			}
			break
		}
		if err := sock.RecvErr(fd, fam); err != nil {
			sock.Close(fd)
			return err
		}
		size := s.SendSize
		if size == 0 {
			size = spec.DefaultSendSize(s.Workload, w.granted.Send)
		}
		w.udps = &workload.UDPStream{Loop: loop, FD: fd, SendSize: size, Bytes: s.Bytes}
		w.udps.Prepare()
	case spec.TCPCRR:
		w.crr = &workload.CRR{Loop: loop, Remote: remote, NoDelay: s.NoDelay, Request: s.Request, Response: s.Response,
			FastOpen: s.FastOpen, SendBuffer: s.SendBuffer, RecvBuffer: s.RecvBuffer}
		// A socket made like the test's connections says what the kernel
		// grants them and, with `local`, that the address can be bound, so
		// a bad one fails now and not as a count of errors.
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
		if local.IsValid() {
			w.crr.Local = sock.NewAddr(local)
		}
		w.crr.Prepare()
		w.local = local
		w.peer = data
	}
	return nil
}

// streamDrain bounds how long TCP_STREAM waits for the server to read what
// is in flight and close.
const streamDrain = 10 * time.Second

// localErr names the `local` option when binding the source address failed.
func localErr(err error, s *spec.Spec) error {
	if s.Local != "" || s.LocalPort != 0 {
		return &spec.OptionError{Option: "local", Msg: err.Error()}
	}
	return err
}

// loop returns the shared part of whichever loop the worker runs.
func (w *worker) loop() *workload.Loop {
	switch {
	case w.rr != nil:
		return &w.rr.Loop
	case w.crr != nil:
		return &w.crr.Loop
	case w.stream != nil:
		return &w.stream.Loop
	case w.maerts != nil:
		return &w.maerts.Loop
	case w.udps != nil:
		return &w.udps.Loop
	}
	return &w.udp.Loop
}

// run is the data-path thread: it binds itself, parks until start, and runs
// the loop, measuring its own CPU time.
func (w *worker) run() {
	runtime.LockOSThread() // never unlocked: the thread ends with the test, and its binding with it
	defer close(w.done)
	if w.cpu != nil {
		if err := cpu.Bind(*w.cpu); err != nil {
			w.ready <- err
			return
		}
	}
	w.affinity, _ = cpu.Affinity()
	if w.rate > 0 {
		sock.FineTimers() // best effort: sleeps wake on time
	}
	w.ready <- nil
	<-w.begin
	if w.stop.Load() {
		return
	}
	t0, err := cpu.ThreadTime()
	w.loop().Start = time.Now()
	switch {
	case w.rr != nil:
		w.rr.Run()
	case w.crr != nil:
		w.crr.Run()
	case w.stream != nil:
		w.stream.Run()
	case w.maerts != nil:
		w.maerts.Run()
	case w.udps != nil:
		w.udps.Run()
	default:
		w.udp.Run()
	}
	if t1, err1 := cpu.ThreadTime(); err == nil && err1 == nil {
		w.threadTime = t1.Sub(t0).Total()
	}
}

// start releases the parked thread into the measured interval.
func (w *worker) start() { w.begin <- struct{}{} }

// finish ends the data connection after the loop: TCP_RR half-closes and
// drains until the server closes, so the server answers and counts every
// request that was sent.
func (w *worker) finish(timeout time.Duration) {
	if w.fd < 0 || w.kind != spec.TCPRR {
		return
	}
	unix.Shutdown(w.fd, unix.SHUT_WR)
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		n, err := unix.Read(w.fd, buf)
		if err == unix.EAGAIN || err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return
		}
	}
}

// close frees the sockets and, if the loop never started, its thread.
func (w *worker) close() {
	select {
	case <-w.done:
	default:
		w.stop.Store(true)
		select {
		case <-w.done:
		case w.begin <- struct{}{}: // never started: let it see stop and end
			<-w.done
		}
	}
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}
