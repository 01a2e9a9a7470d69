package client

import (
	"net/netip"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/hist"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// worker is the client's data path for one test: its sockets, its loop and
// the OS thread that runs the loop.
type worker struct {
	kind    spec.Workload
	fd      int // the data socket (TCP_RR, UDP_RR); -1 for TCP_CRR
	rr      *workload.RR
	crr     *workload.CRR
	udp     *workload.UDPRR
	stop    atomic.Bool
	begin   chan struct{}
	done    chan struct{}
	local   netip.AddrPort
	peer    netip.AddrPort
	granted sock.Buffers
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
// parks a locked thread that will run the loop once start is called.
func newWorker(s *spec.Spec, data netip.AddrPort) (*worker, error) {
	w := &worker{kind: s.Workload, fd: -1, begin: make(chan struct{}), done: make(chan struct{})}
	local, err := localAddr(s, data.Addr())
	if err != nil {
		return nil, err
	}
	fam := familyOf(data.Addr())
	h := hist.New()
	limits := workload.Limits{Duration: s.Duration, Transactions: s.Transactions}
	loop := workload.Loop{Limits: limits, Stop: &w.stop, Hist: h}
	remote := sock.NewAddr(data)
	switch s.Workload {
	case spec.TCPRR:
		fd, err := sock.Open(fam, unix.SOCK_STREAM, sock.Options{NoDelay: s.NoDelay}, local)
		if err != nil {
			return nil, localErr(err, s)
		}
		if err := sock.Dial(fd, remote, s.ConnectTimeout); err != nil {
			sock.Close(fd)
			return nil, err
		}
		w.fd = fd
		w.rr = &workload.RR{Loop: loop, FD: fd, Request: s.Request, Response: s.Response, Burst: s.Burst}
		w.rr.Prepare()
	case spec.UDPRR:
		fd, err := sock.Open(fam, unix.SOCK_DGRAM, sock.Options{}, local)
		if err != nil {
			return nil, localErr(err, s)
		}
		if en := sock.Connect(fd, remote); en != 0 {
			sock.Close(fd)
			return nil, &sock.OpError{Op: "connect", Addr: remote.String(), Err: en}
		}
		w.fd = fd
		w.udp = &workload.UDPRR{Loop: loop, FD: fd, Request: s.Request, Response: s.Response, Burst: s.Burst, Timeout: s.Timeout}
		if err := w.udp.Prepare(); err != nil {
			sock.Close(fd)
			return nil, err
		}
	case spec.TCPCRR:
		w.crr = &workload.CRR{Loop: loop, Remote: remote, NoDelay: s.NoDelay, Request: s.Request, Response: s.Response}
		if local.IsValid() {
			// Check now that the address can be bound, so a bad `local`
			// fails at set-up and not as a count of errors.
			fd, err := sock.Open(fam, unix.SOCK_STREAM, sock.Options{ReuseAddr: true}, netip.AddrPortFrom(local.Addr(), 0))
			if err != nil {
				return nil, localErr(err, s)
			}
			sock.Close(fd)
			w.crr.Local = sock.NewAddr(local)
		}
		w.crr.Prepare()
		w.local = local
		w.peer = data
	}
	if w.fd >= 0 {
		w.local = sock.LocalAddr(w.fd)
		w.peer = sock.PeerAddr(w.fd)
		w.granted = sock.Granted(w.fd)
	}
	go w.run()
	return w, nil
}

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
	}
	return &w.udp.Loop
}

func (w *worker) run() {
	runtime.LockOSThread() // never unlocked: the thread ends with the test
	defer close(w.done)
	<-w.begin
	if w.stop.Load() {
		return
	}
	w.loop().Start = time.Now()
	switch {
	case w.rr != nil:
		w.rr.Run()
	case w.crr != nil:
		w.crr.Run()
	default:
		w.udp.Run()
	}
}

// start releases the parked thread into the measured interval.
func (w *worker) start() { w.begin <- struct{}{} }

// finish ends the data connection after the loop: TCP half-closes and
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
