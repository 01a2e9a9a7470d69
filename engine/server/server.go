// Package server is netscript's daemon, the other end of every test (what
// netserver is to netperf). It accepts control connections, sets up one data
// endpoint per test on its own threads, and reports its counts back. Many
// tests run at once, each on its own endpoint; a client that misbehaves
// ends only its own session.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"sync"
	"time"

	"netscript/engine/workload"
)

// Config sets up a Server.
type Config struct {
	Version  string            // the netscript release, reported to clients
	Threads  *workload.Threads // shared accounting of data-path threads; a private one if nil
	Log      io.Writer         // where session errors are logged; discarded if nil
	MaxFrame int               // largest control payload accepted; proto.DefaultMaxFrame if 0

	// HandshakeTimeout bounds each step of the control conversation before
	// the test starts (the preamble, Setup, Start).
	HandshakeTimeout time.Duration
	// Grace is how long past a test's announced length the server waits for
	// Stop before it ends the session on its own.
	Grace time.Duration
}

// Server serves tests on any number of listeners.
type Server struct {
	cfg    Config
	log    *log.Logger
	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	listeners []net.Listener
	standing  []*standing // endpoints started by Data
	sessions  sync.WaitGroup
	closed    bool
}

// New returns a server that is not yet listening.
func New(cfg Config) *Server {
	if cfg.Threads == nil {
		cfg.Threads = &workload.Threads{}
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = 10 * time.Second
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{cfg: cfg, log: log.New(cfg.Log, "netscript serve: ", log.LstdFlags), ctx: ctx, cancel: cancel}
}

// Listen opens a control listener on addr ("127.0.0.1:12866", "[::1]:0")
// and starts serving it. It returns the address actually bound.
func (s *Server) Listen(addr string) (net.Addr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("server closed")
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	s.listeners = append(s.listeners, l)
	go s.acceptLoop(l)
	return l.Addr(), nil
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

func (s *Server) acceptLoop(l net.Listener) {
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
		s.sessions.Add(1)
		go func() {
			defer s.sessions.Done()
			s.session(c)
		}()
	}
}

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
	return nil
}
