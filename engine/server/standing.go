package server

import (
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"netscript/engine/datapath"
	"netscript/engine/limits"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// DataConfig describes a standing data endpoint: one that serves a workload
// on a fixed port with no control connection, for clients that run with
// control=False (netperf's -N, which talks to discard, chargen and echo
// services).
type DataConfig struct {
	Workload *spec.Workload
	// Addr is where to listen. An unspecified address (the zero Addr, or
	// 0.0.0.0 / ::) listens on every address, IPv4 and IPv6.
	Addr netip.AddrPort
	// Request and Response are the RR message sizes the endpoint expects
	// and answers with (TCP_RR, TCP_CRR, UDP_RR); netperf's 1 and 1 if 0.
	Request, Response int
	// SendSize is TCP_MAERTS's send size; 0 gives the default.
	SendSize int
	// From, if set, are the only networks the endpoint takes data from
	// and answers (netperf -N clients the operator names). A UDP_RR
	// endpoint may answer with more than a request carried only with it:
	// a spoofed request can then reflect only onto the operator's own
	// networks.
	From []netip.Prefix
}

// standing is one running standing endpoint.
type standing struct {
	cfg  DataConfig
	fd   int
	stop atomic.Bool
	wg   sync.WaitGroup
	// refused counts connections closed at once: over the thread budget,
	// over the standing endpoints' share of it, or over their network's
	// cap.
	refused atomic.Uint64

	// The connections being served, and the bounds on them.
	mu     sync.Mutex
	conns  map[int]netip.Prefix // by descriptor: each one's client network
	byNet  map[netip.Prefix]int
	perNet int           // at most this many from one client network
	share  *atomic.Int64 // the server's standing connections (Server.standingIn)
	most   int           // at most this many of those at once
	idle   time.Duration // a connection that moves nothing for this long is ended
}

// Data starts a standing data endpoint and returns the address it listens
// on. It serves until the server is closed: TCP endpoints serve each
// connection on its own thread, as netserver forks a child per test; TCP_CRR
// and the UDP endpoints serve on one thread. A TCP_CRR endpoint accepts TCP
// Fast Open.
func (s *Server) Data(cfg DataConfig) (netip.AddrPort, error) {
	st, err := s.bindData(cfg)
	if err != nil {
		return netip.AddrPort{}, err
	}
	if err := s.startData(st); err != nil {
		return netip.AddrPort{}, err
	}
	return sock.LocalAddr(st.fd), nil
}

// CheckData refuses a standing endpoint's settings that no endpoint could
// serve, before anything is opened; it fills in netperf's request and
// response sizes of 1 where they are left at 0.
func CheckData(cfg *DataConfig) error {
	w := cfg.Workload
	if w == nil {
		return errors.New("data endpoint: no workload")
	}
	if w.Messages {
		if cfg.Request == 0 {
			cfg.Request = 1
		}
		if cfg.Response == 0 {
			cfg.Response = 1
		}
	}
	biggest := spec.MaxMessage
	if w.Datagram {
		biggest = spec.MaxDatagram
	}
	switch {
	case !w.Messages && (cfg.Request != 0 || cfg.Response != 0):
		return fmt.Errorf("data endpoint %s: its transactions carry no request or response", w.Name)
	case w.Messages && (cfg.Request < 1 || cfg.Request > biggest || cfg.Response < 1 || cfg.Response > biggest), cfg.SendSize < 0 || cfg.SendSize > biggest:
		return fmt.Errorf("data endpoint %s: message sizes must be between 1 and %d bytes", w.Name, biggest)
	case w.Datagram && w.Messages && cfg.Response > cfg.Request && len(cfg.From) == 0:
		// It answers whoever a datagram says it comes from, and cannot tell.
		return fmt.Errorf("data endpoint %s: a response of %d bytes to a request of %d would answer a spoofed datagram with more than it carried "+
			"(a standing UDP endpoint has no handshake to tell its client from anyone else): make response at most request, "+
			"or name the networks it answers with from=PREFIX", w.Name, cfg.Response, cfg.Request)
	}
	return nil
}

// bindData checks cfg and opens its endpoint's socket, serving nothing yet.
func (s *Server) bindData(cfg DataConfig) (*standing, error) {
	if err := CheckData(&cfg); err != nil {
		return nil, err
	}
	fd, err := openStanding(cfg)
	if err != nil {
		return nil, fmt.Errorf("data endpoint %s on %s: %w", cfg.Workload.Name, cfg.Addr, err)
	}
	st := &standing{cfg: cfg, fd: fd, conns: map[int]netip.Prefix{}, byNet: map[netip.Prefix]int{},
		perNet: s.lim.MaxTestsPerClient, share: &s.standingIn, most: max(1, s.lim.MaxThreads/2), idle: s.lim.HandshakeTimeout}
	if st.cfg.SendSize == 0 {
		st.cfg.SendSize = spec.DefaultSendSize(cfg.Workload, sock.Granted(fd).Send)
	}
	return st, nil
}

// startData serves a bound endpoint until the server is closed.
func (s *Server) startData(st *standing) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		sock.Close(st.fd)
		return errors.New("server closed")
	}
	s.standing = append(s.standing, st)
	s.mu.Unlock()
	st.wg.Add(1)
	go st.run(s.cfg.Threads)
	if !st.cfg.Workload.Endpoint() {
		st.wg.Add(1)
		go st.watchIdle()
	}
	return nil
}

// openStanding opens and binds the endpoint's socket; an unspecified
// address gives a dual-stack IPv6 socket (or IPv4 where IPv6 is off).
func openStanding(cfg DataConfig) (int, error) {
	typ := unix.SOCK_STREAM
	if cfg.Workload.Datagram {
		typ = unix.SOCK_DGRAM
	}
	ip := cfg.Addr.Addr()
	family := unix.AF_INET
	var fd int
	var err error
	if !ip.IsValid() || ip.IsUnspecified() {
		fd, err = sock.Open(unix.AF_INET6, typ, sock.Options{ReuseAddr: true}, netip.AddrPort{})
		if err == nil {
			unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0)
			ip, family = netip.IPv6Unspecified(), unix.AF_INET6
		} else {
			fd, err = sock.Open(unix.AF_INET, typ, sock.Options{ReuseAddr: true}, netip.AddrPort{})
			ip = netip.IPv4Unspecified()
		}
		if err != nil {
			return -1, err
		}
	} else {
		if ip.Unmap().Is6() {
			family = unix.AF_INET6
		}
		if fd, err = sock.Open(family, typ, sock.Options{ReuseAddr: true}, netip.AddrPort{}); err != nil {
			return -1, err
		}
	}
	a := sock.NewAddr(netip.AddrPortFrom(ip, cfg.Addr.Port()))
	if en := sock.Bind(fd, a); en != 0 {
		sock.Close(fd)
		return -1, &sock.OpError{Op: "bind", Addr: a.String(), Err: en}
	}
	if typ == unix.SOCK_STREAM {
		if cfg.Workload.Accepts(spec.OptFastOpen) {
			if err := sock.ListenFastOpen(fd, fastOpenQueue); err != nil {
				sock.Close(fd)
				return -1, err
			}
		}
		if err := unix.Listen(fd, 1024); err != nil {
			sock.Close(fd)
			return -1, &sock.OpError{Op: "listen", Addr: a.String(), Err: err}
		}
	}
	return fd, nil
}

// run is the endpoint's main thread.
func (st *standing) run(th *workload.Threads) {
	defer st.wg.Done()
	release := th.Resident(1)
	defer release()
	runtime.LockOSThread() // never unlocked: the thread ends with the endpoint
	if st.cfg.Workload.Endpoint() {
		datapath.Of(st.cfg.Workload).Server(st.params(st.fd)).Run()
		return
	}
	st.acceptLoop(th)
}

// params is what the endpoint's server loops are made from.
func (st *standing) params(fd int) *datapath.ServerParams {
	c := &st.cfg
	return &datapath.ServerParams{FD: fd, Request: c.Request, Response: c.Response, SendSize: c.SendSize,
		RecvSize: spec.DefaultRecvSize(c.Workload, 0), Standing: true, Stop: &st.stop, Allowed: st.allowed()}
}

// allowed is the set of sources the endpoint serves: nil (everyone)
// unless the operator named networks with from=.
func (st *standing) allowed() *workload.Allow {
	if len(st.cfg.From) == 0 {
		return nil
	}
	return workload.NewAllowNets(st.cfg.From)
}

// acceptLoop serves each TCP connection on a thread of its own, charged to
// the daemon's thread budget. Anyone may open connections to a standing
// endpoint, so one is closed at once when it does not fit: in the budget,
// in the standing endpoints' share of it (half: the rest stays for tests
// with a control connection, a token holder's among them), or in its
// client network's cap (--max-tests-per-client).
func (st *standing) acceptLoop(th *workload.Threads) {
	var peer sock.Addr
	for !st.stop.Load() {
		fd, en := sock.Accept(st.fd, &peer)
		if en != 0 {
			if en == unix.EINVAL || en == unix.EBADF {
				return
			}
			continue // EAGAIN each tick; EMFILE and the like pass
		}
		peer.Received()
		if !st.allowed().Has(peer.AddrPort().Addr()) {
			st.refused.Add(1) // not a network the operator named with from=
			sock.Close(fd)
			continue
		}
		release, ok := st.admit(fd, limits.ClientNet(peer.AddrPort().Addr()), th)
		if !ok {
			st.refused.Add(1)
			sock.Close(fd)
			continue
		}
		st.wg.Add(1)
		go st.serveConn(fd, release)
	}
}

// admit takes a thread and a place for the connection fd from network n,
// or reports there is none.
func (st *standing) admit(fd int, n netip.Prefix, th *workload.Threads) (release func(), ok bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.byNet[n] >= st.perNet {
		return nil, false
	}
	if st.share.Add(1) > int64(st.most) {
		st.share.Add(-1)
		return nil, false
	}
	rel, err := th.TryAcquire(1)
	if err != nil {
		st.share.Add(-1)
		return nil, false
	}
	st.conns[fd] = n
	st.byNet[n]++
	return func() {
		rel()
		st.share.Add(-1)
	}, true
}

// serveConn runs one connection's loop until the client is done with it
// (or the connection is ended for idling: watchIdle).
func (st *standing) serveConn(fd int, release func()) {
	defer st.wg.Done()
	defer release()
	runtime.LockOSThread() // never unlocked
	datapath.Of(st.cfg.Workload).Server(st.params(fd)).Run()
	st.mu.Lock() // out of the watch before the descriptor may be reused
	n := st.conns[fd]
	delete(st.conns, fd)
	if st.byNet[n]--; st.byNet[n] <= 0 {
		delete(st.byNet, n)
	}
	sock.Close(fd)
	st.mu.Unlock()
}

// watchIdle ends the endpoint's connections that have moved nothing for
// st.idle (no data nor acknowledgement received: the kernel's TCP_INFO
// says since when), so that idle ones give their thread back.
func (st *standing) watchIdle() {
	defer st.wg.Done()
	every := min(st.idle/4, time.Second)
	for !st.stop.Load() {
		time.Sleep(every)
		st.mu.Lock()
		for fd := range st.conns {
			ti, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
			if err != nil {
				continue
			}
			quiet := time.Duration(min(ti.Last_data_recv, ti.Last_ack_recv)) * time.Millisecond
			if quiet >= st.idle {
				unix.Shutdown(fd, unix.SHUT_RDWR) // its loop ends; serveConn closes it
			}
		}
		st.mu.Unlock()
	}
}

// close stops the endpoint and waits for its threads.
func (st *standing) close() {
	st.stop.Store(true)
	st.wg.Wait()
	sock.Close(st.fd)
}
