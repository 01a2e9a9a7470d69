// Package server is netscript's daemon, the other end of every test (what
// netserver is to netperf). It accepts control connections, sets up one data
// endpoint per test on its own threads, and reports its counts back. Many
// tests run at once, each on its own endpoint; a client that misbehaves
// ends only its own session.
//
// The daemon treats every client as hostile: what a client asks for is
// bounded by the operator's limits.Limits, a client that has not yet been
// admitted to a test holds at most one of Limits.MaxPending slots for at
// most Limits.HandshakeTimeout, and with a token (Config.Token) only
// clients that prove they hold it get past the first exchange.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"netscript/engine/auth"
	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/workload"
)

// Config sets up a Server.
type Config struct {
	Version string            // the netscript release, reported to clients
	Commit  string            // the commit it was built from, in the env() it reports
	Threads *workload.Threads // shared accounting of data-path threads; a private one if nil
	Log     io.Writer         // where session errors are logged; discarded if nil

	// Limits bound what clients may ask for and how many may be served
	// at once; limits.Default() if zero.
	Limits limits.Limits
	// Token, if set, is the secret every client must prove it holds before
	// it may ask for anything (proto.Conn.Authenticate). The server derives
	// its auth.Secret once, in New.
	Token auth.Token

	// MaxFrame, if set, overrides Limits.MaxFrame.
	MaxFrame int
	// HandshakeTimeout, if set, overrides Limits.HandshakeTimeout: the time
	// a client has from connecting to asking for a test (preamble, token
	// exchange and its first request), and for each later step before the
	// test starts.
	HandshakeTimeout time.Duration
	// Grace is how long past a test's announced length the server waits for
	// Stop before it ends the session on its own.
	Grace time.Duration
	// Agent, if set, runs the client side of tests for scripts (client=);
	// without it a RunClient request is refused.
	Agent ClientAgent
	// OnNetperf, if set, is told what the server counted in each netperf
	// test, just before netperf is sent the results (ListenNetperf).
	OnNetperf func(NetperfReport)
	// NetperfAnySource takes a netperf TCP test's data connections from
	// any address, as netserver does, instead of only from its control
	// connection's address. netperf -- -L on a client with several
	// addresses needs it for TCP tests, whose requests do not say where
	// their data will come from. A UDP test's datagrams are taken from the
	// control connection's address alone either way: its answers go where
	// a datagram says it came from.
	NetperfAnySource bool
	// Explain, if set, words an error the server logs or sends to a client
	// (an Error message): the daemon's front end adds its advice there,
	// such as the flag that sets a bound (limits.Bounded). Without it the
	// text is the error's own.
	Explain func(error) string
	// LogPrefix begins every line the server logs (the daemon's name:
	// "netscript serve: ").
	LogPrefix string
	// UnixDir, if set, is where the server makes a directory of its own
	// for the sockets of tests over UNIX domain sockets (removed when it
	// closes); "": they have abstract names, which no file holds.
	UnixDir string
}

// Server serves tests on any number of listeners.
type Server struct {
	cfg    Config
	secret auth.Secret // of cfg.Token
	lim    limits.Limits
	admit  *limits.Admission
	log    *log.Logger

	pend       *pendingSet  // control connections not yet admitted to a test (pending.go)
	lingering  atomic.Int64 // refused ones still being read before they close (busy)
	standingIn atomic.Int64 // connections the standing endpoints serve (standing.go)
	ctx        context.Context
	cancel     context.CancelFunc

	mu        sync.Mutex
	listeners []net.Listener
	standing  []*standing // endpoints started by Data
	sessions  sync.WaitGroup
	closed    bool

	np netperfStats // what the netperf listeners counted (netperf.go)

	unixNames *unixNames // the names of UNIX domain endpoints (unix.go)
}

// New returns a server that is not yet listening.
func New(cfg Config) *Server {
	if cfg.Threads == nil {
		cfg.Threads = &workload.Threads{}
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	lim := cfg.Limits
	if lim == (limits.Limits{}) {
		lim = limits.Default()
	}
	if cfg.MaxFrame > 0 {
		lim.MaxFrame = cfg.MaxFrame
	}
	if cfg.HandshakeTimeout > 0 {
		lim.HandshakeTimeout = cfg.HandshakeTimeout
	}
	cfg.HandshakeTimeout = lim.HandshakeTimeout
	if lim.MaxThreads <= 0 {
		lim.MaxThreads = limits.DefaultMaxThreads()
	}
	if lim.MaxPendingPerClient <= 0 {
		lim.MaxPendingPerClient = lim.MaxPending
	}
	if cfg.Threads.Max == 0 {
		cfg.Threads.SetMax(lim.MaxThreads)
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 30 * time.Second
	}
	gate := newFloodGate(cfg.Log)
	gate.prefix = cfg.LogPrefix
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{cfg: cfg, secret: auth.NewSecret(cfg.Token), lim: lim, admit: limits.NewAdmission(lim), pend: newPendingSet(&lim),
		log: log.New(gate, cfg.LogPrefix, log.LstdFlags),
		ctx: ctx, cancel: cancel, unixNames: &unixNames{parent: cfg.UnixDir}}
}

// Limits returns the bounds the server applies.
func (s *Server) Limits() limits.Limits { return s.lim }

// Load is what a server holds at one moment.
type Load struct {
	Pending int // control connections not yet admitted to a test
	Proven  int // of those, how many proved the token or asked for a test
	Running int // tests admitted and not yet ended
	Threads int // data-path threads charged to the budget (Limits.MaxThreads)
}

// Load returns what the server holds now.
func (s *Server) Load() Load {
	pending, proven := s.pend.count()
	return Load{Pending: pending, Proven: proven, Running: s.admit.Running(), Threads: s.cfg.Threads.InUse()}
}

// Listen opens a control listener on addr ("127.0.0.1:12866", "[::1]:0")
// and starts serving it. It returns the address actually bound.
func (s *Server) Listen(addr string) (net.Addr, error) {
	return s.listen(addr, "listen "+addr, s.session, s.busy)
}

// listen opens a listener on addr whose connections serve answers (busy
// refuses one over the pending bounds); what names it in an error.
func (s *Server) listen(addr, what string, serve func(net.Conn, netip.Addr, *slot), busy func(net.Conn, string)) (net.Addr, error) {
	l, err := bind(addr, what)
	if err != nil {
		return nil, err
	}
	if err := s.serveOn(l, serve, busy); err != nil {
		return nil, err
	}
	return l.Addr(), nil
}

// bind opens a listener on addr that accepts nothing yet; what names it
// in an error.
func bind(addr, what string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return l, nil
}

// serveOn accepts l's connections and serves them.
func (s *Server) serveOn(l net.Listener, serve func(net.Conn, netip.Addr, *slot), busy func(net.Conn, string)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		l.Close()
		return errors.New("server closed")
	}
	s.listeners = append(s.listeners, l)
	go s.acceptLoop(l, serve, busy)
	return nil
}

// Addrs returns the addresses of the control listeners.
func (s *Server) Addrs() []net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]net.Addr, len(s.listeners))
	for i, l := range s.listeners {
		out[i] = l.Addr()
	}
	return out
}

// acceptLoop accepts control connections on l and runs serve on each (the
// native protocol's session, or netperf's); one over the pending bounds is
// handed to busy instead.
func (s *Server) acceptLoop(l net.Listener, serve func(net.Conn, netip.Addr, *slot), busy func(net.Conn, string)) {
	for {
		c, err := l.Accept()
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			s.log.Printf("accept on %s: %v", l.Addr(), err)
			select {
			case <-time.After(50 * time.Millisecond): // EMFILE and the like: do not spin
			case <-s.ctx.Done():
				return
			}
			continue
		}
		// A connection beyond --max-pending, or beyond
		// --max-pending-per-client from its network, takes the place of
		// an unproven one (pending.go), or is told why not and closed
		// here, before it costs a goroutine.
		addr := remoteAddr(c)
		sl, full := s.pend.take(addr, func() { c.Close() })
		if full != nil {
			busy(c, s.explain(full))
			continue
		}
		s.sessions.Add(1)
		go func() {
			defer s.sessions.Done()
			serve(c, addr, sl)
		}()
	}
}

// remoteAddr is the client address of a control connection.
func remoteAddr(c net.Conn) netip.Addr {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		if a, ok := netip.AddrFromSlice(ta.IP); ok {
			return a.Unmap()
		}
	}
	return netip.Addr{}
}

// busy refuses a control connection because too many are in their
// handshake: the preamble and an Error, written into the new socket's empty
// buffer without waiting, then the end of what the server sends. The
// client sends its preamble and Hello meanwhile; a close with them unread
// would reset the connection, and with it the Error, so the connection
// reads and drops a little of them (at most busyLinger, and only
// maxLingering at once) before it closes.
func (s *Server) busy(c net.Conn, why string) {
	b := proto.AppendPreamble(nil, proto.Version)
	b, _ = proto.AppendFrame(b, proto.TypeError, proto.Error{Message: why})
	c.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
	c.Write(b)
	tc, ok := c.(*net.TCPConn)
	if !ok || s.lingering.Add(1) > maxLingering {
		s.lingering.Add(-1)
		c.Close()
		return
	}
	tc.CloseWrite()
	go func() {
		defer s.lingering.Add(-1)
		c.SetReadDeadline(time.Now().Add(busyLinger))
		io.Copy(io.Discard, io.LimitReader(c, 4096))
		c.Close()
	}()
}

// How long, and how many at once, refused control connections are read
// before they close (busy).
const (
	busyLinger   = time.Second
	maxLingering = 64
)

// Close stops listening, ends every session and standing endpoint, and
// waits for them.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	ls, sts := s.listeners, s.standing
	s.mu.Unlock()
	s.cancel()
	for _, l := range ls {
		l.Close()
	}
	for _, st := range sts {
		st.close()
	}
	s.sessions.Wait()
	s.unixNames.close()
	return nil
}
