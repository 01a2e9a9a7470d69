package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"netscript/engine/cpu"
	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/spec"
	"netscript/engine/sysinfo"
	"netscript/engine/workload"
)

// session runs one control connection: one test. Until the client is
// admitted to a test it holds one of Limits.MaxPending slots (pending.go),
// the preamble and the handshake must fit in authWait, and all of it with
// its first request in Limits.HandshakeTimeout, so a slow or silent peer
// costs a bounded amount.
func (s *Server) session(c net.Conn, clientAddr netip.Addr, sl *slot) {
	defer c.Close()
	stopWatch := context.AfterFunc(s.ctx, func() { c.Close() })
	defer stopWatch()
	admitted := sync.OnceFunc(func() { s.pend.give(sl) })
	defer admitted()

	pc := proto.NewConn(c)
	pc.MaxFrame = s.lim.MaxFrame
	peer := c.RemoteAddr().String()
	deadline := time.Now().Add(s.lim.HandshakeTimeout)
	left := func() time.Duration { return max(time.Until(deadline), time.Millisecond) }
	// The preamble and the handshake, one round trip for the client,
	// within a shorter bound (authWait).
	authed := min(left(), authWait)
	if err := pc.Handshake(authed, true); err != nil {
		s.log.Printf("%s: handshake: %v", peer, err)
		return
	}
	key, err := pc.Authenticate(s.secret, true, authed)
	if err != nil {
		s.log.Printf("%s: %v", peer, err)
		return
	}
	if s.secret.Set() {
		s.pend.prove(sl) // a stranger cannot: it holds the token
	}
	typ, payload, err := pc.Recv(left())
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = limits.Hit("handshake-timeout", fmt.Errorf("no request within %v of connecting", s.lim.HandshakeTimeout))
		}
		s.refuse(pc, peer, fmt.Errorf("waiting for the first request: %w", err))
		return
	}
	if typ == proto.TypeError {
		var e proto.Error
		proto.Decode(typ, payload, &e)
		s.log.Printf("%s: the client gave up: %s", peer, clip(e.Message))
		return
	}
	s.pend.prove(sl) // it asked for something, sealed with the session's key
	release, err := s.admit.Admit(clientAddr)
	if err != nil {
		s.refuse(pc, peer, err)
		return
	}
	defer release()
	admitted()
	switch {
	case typ == proto.TypeSetup:
		s.runTest(pc, peer, payload, guard{key: key, client: clientAddr})
	case typ == proto.TypeRunClient && s.cfg.Agent != nil: // the client side of a test, for a script
		s.cfg.Agent.ServeClient(s.ctx, &Session{Conn: pc, Peer: peer, srv: s}, payload)
	case typ == proto.TypeRunClient:
		s.refuse(pc, peer, errors.New("this server does not run the client side of tests for scripts"))
	default:
		s.refuse(pc, peer, &proto.UnexpectedError{Want: proto.TypeSetup, Got: typ})
	}
}

// authWait bounds the preamble and the handshake, one round trip for a
// client: a peer that has not proved itself by then is ended.
const authWait = 3 * time.Second

// runTest serves one test whose Setup payload has arrived.
func (s *Server) runTest(pc *proto.Conn, peer string, payload []byte, g guard) {
	c := pc.Net()
	hs := s.lim.HandshakeTimeout
	var setup proto.Setup
	if err := proto.Decode(proto.TypeSetup, payload, &setup); err != nil {
		s.refuse(pc, peer, err)
		return
	}
	w, err := CheckSetup(&s.lim, &setup)
	if err != nil {
		s.refuse(pc, peer, err)
		return
	}
	local, ok := netip.AddrFromSlice(c.LocalAddr().(*net.TCPAddr).IP)
	if !ok {
		s.refuse(pc, peer, errors.New("cannot tell the control connection's local address"))
		return
	}
	t, err := s.newTest(w, &setup, local.Unmap(), g)
	if err != nil {
		s.refuse(pc, peer, err)
		return
	}
	defer t.close()
	ready := proto.Ready{DataPort: t.port, Buffers: t.buffers, Server: s.info(), TCPFastOpen: sysinfo.FastOpen()}
	if w.Bulk {
		// The sizes this end uses: the sender's send size or the
		// receiver's receive size.
		if w.ServerSends {
			ready.SendSize = t.sendSize
		} else {
			ready.RecvSize = t.recvSize
		}
	}
	if err := pc.Send(proto.TypeReady, ready, hs); err != nil {
		s.log.Printf("%s: %v", peer, err)
		return
	}
	// The client opens its data connections, then says Start. Each step
	// must come within the handshake bound of the one before (Ready, a
	// connection's arrival), so a client that stops setting up is ended
	// here and its budget returned, while one that opens many connections
	// over a long path has the time it needs.
	readyAt := time.Now()
	stalled := s.watchSetup(t, c, readyAt)
	// In all: the bound, the test's length, and a hundredth of the bound
	// per flow (a client trickling its connections holds no test for long).
	err = pc.Expect(proto.TypeStart, &proto.Start{}, hs+time.Duration(setup.DurationNs)+time.Duration(t.flows)*hs/100)
	if quiet := stalled(); quiet && err != nil {
		s.refuse(pc, peer, fmt.Errorf("waiting for Start: %w", limits.Hit("handshake-timeout", fmt.Errorf("%d of %d flows' data connections in, then nothing for %v",
			t.arrived.Load(), t.flows, hs))))
		return
	}
	if err != nil {
		s.endEarly(pc, peer, fmt.Errorf("waiting for Start: %w", err))
		return
	}
	if err := t.start(t.quietSince(readyAt).Add(hs)); err != nil {
		s.refuse(pc, peer, err)
		return
	}
	if err := pc.Send(proto.TypeStarted, proto.Started{}, hs); err != nil {
		s.log.Printf("%s: %v", peer, err)
		return
	}
	// The test runs. The only message that may come now is Stop; a closed
	// connection means the client is gone and the test ends here. A test
	// the server ends itself (over a bound) wakes the wait.
	overLimit := s.watchLimits(t, c)
	wait := s.cfg.Grace + time.Duration(setup.DurationNs)
	if setup.DurationNs == 0 {
		wait = s.cfg.Grace + s.lim.MaxDuration
	}
	err = s.awaitStop(pc, &setup, wait) // with heartbeats, if the client asked (live.go)
	if e := overLimit(); e != nil {
		s.refuse(pc, peer, fmt.Errorf("%s: %w", w.Name, e))
		return
	}
	if err != nil {
		s.endEarly(pc, peer, fmt.Errorf("test %s ended without Stop: %w", setup.Test, err))
		return
	}
	res := t.stop()
	if err := pc.Send(proto.TypeResults, res, hs); err != nil {
		s.log.Printf("%s: %v", peer, err)
	}
}

// watchSetup ends the wait for Start (through the connection's read
// deadline) once the test's set-up has made no progress for the handshake
// bound: nothing since Ready or the last flow's connection. The returned
// function ends the watch and reports whether it did so.
func (s *Server) watchSetup(t *test, c net.Conn, ready time.Time) (stalled func() bool) {
	hs := s.lim.HandshakeTimeout
	var fired atomic.Bool
	quit := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(min(hs/10, 100*time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case now := <-tick.C:
				if now.Sub(t.quietSince(ready)) >= hs {
					fired.Store(true)
					c.SetReadDeadline(now)
					return
				}
			}
		}
	}()
	return func() bool {
		close(quit)
		<-watched
		c.SetReadDeadline(time.Time{})
		return fired.Load()
	}
}

// watchLimits wakes the control connection's wait for Stop when the test's
// thread ends because the client went over a bound (the connection rate of
// TCP_CRR). The returned function ends the watch and returns that bound's
// error, if any.
func (s *Server) watchLimits(t *test, c net.Conn) func() error {
	if !t.w.PerTransaction {
		return func() error { return nil }
	}
	var over atomic.Pointer[limits.Exceeded]
	quit := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-t.done:
			var e *limits.Exceeded
			if errors.As(t.err, &e) {
				over.Store(e)
				c.SetReadDeadline(time.Now())
			}
		case <-quit:
		}
	}()
	return func() error {
		close(quit)
		<-watched
		if e := over.Load(); e != nil {
			return e
		}
		return nil
	}
}

// ClientAgent runs the client side of a test for a script (its client=
// option) on this daemon: the server hands it every control connection
// whose first request is RunClient, once the connection is admitted.
// Package agent has one; without one such a request is refused.
type ClientAgent interface {
	ServeClient(ctx context.Context, sess *Session, payload []byte)
}

// Session is an admitted control connection, as a ClientAgent is given it.
type Session struct {
	Conn *proto.Conn
	Peer string // the client's address, for the log
	srv  *Server
}

// Refuse tells the peer why the session cannot go on, and logs it.
func (s *Session) Refuse(err error) { s.srv.refuse(s.Conn, s.Peer, err) }

// Logf writes a line about the session to the server's log.
func (s *Session) Logf(format string, args ...any) {
	s.srv.log.Printf("%s: %s", s.Peer, fmt.Sprintf(format, args...))
}

// refuse sends the reason a session cannot go on and logs it.
func (s *Server) refuse(pc *proto.Conn, peer string, err error) {
	why := s.explain(err)
	s.log.Printf("%s: %s", peer, why)
	var re *proto.RemoteError
	if errors.As(err, &re) {
		return // the client already said why it gave up
	}
	pc.Send(proto.TypeError, proto.Error{Message: clipReply(why)}, time.Second)
}

// explain is err as the daemon's front end words it (Config.Explain).
func (s *Server) explain(err error) string {
	if s.cfg.Explain != nil {
		return s.cfg.Explain(err)
	}
	return err.Error()
}

// Explain is err as the daemon's front end words it for the client and the
// log (Config.Explain): for an agent's own reply.
func (s *Session) Explain(err error) string { return s.srv.explain(err) }

// endEarly ends a session whose client broke off between steps: a message
// out of order is answered with an Error that says so; a connection
// closed, timed out or ended by the client's own Error is only logged.
func (s *Server) endEarly(pc *proto.Conn, peer string, err error) {
	var ue *proto.UnexpectedError
	if errors.As(err, &ue) {
		s.refuse(pc, peer, fmt.Errorf("protocol error: %w", err))
		return
	}
	s.log.Printf("%s: %s", peer, s.explain(err))
}

// CheckSetup validates a Setup message from an untrusted client and
// returns its workload. A value no server could serve (a negative size, a
// datagram larger than UDP carries) is out of range; one within that but
// beyond the operator's bound is a *limits.Exceeded that names the serve
// flag to change.
func CheckSetup(l *limits.Limits, m *proto.Setup) (*spec.Workload, error) {
	w, err := spec.LookupWorkload(m.Test)
	if err != nil || w.Netperf != m.Test {
		return nil, fmt.Errorf("unknown test %s", clip(m.Test))
	}
	hard := spec.MaxMessage
	if w.Datagram {
		hard = spec.MaxDatagram
	}
	msg := int64(min(hard, l.MaxMessage))
	var rr []error
	if w.Messages {
		rr = []error{
			bounded("request size", "max-message", int64(m.Request), 1, int64(hard), msg),
			bounded("response size", "max-message", int64(m.Response), 1, int64(hard), msg),
		}
	}
	checks := append(rr,
		bounded("send size", "max-message", int64(m.SendSize), 0, int64(hard), msg),
		bounded("receive size", "max-message", int64(m.RecvSize), 0, spec.MaxMessage, int64(min(spec.MaxMessage, l.MaxMessage))),
		bounded("send buffer", "max-buffer", int64(m.SendBuffer), 0, spec.MaxBuffer, int64(l.MaxBuffer)),
		bounded("receive buffer", "max-buffer", int64(m.RecvBuffer), 0, spec.MaxBuffer, int64(l.MaxBuffer)),
		checkDuration(l, m.DurationNs),
		checkPort(l, m.DataPort),
		checkFlows(l, m),
		checkOther(w, m),
	)
	for _, err := range checks {
		if err != nil {
			return nil, err // one line for the user: the first problem
		}
	}
	if m.CPU != nil {
		// The option's name, so the client's user knows what to change.
		if *m.CPU < 0 {
			return nil, fmt.Errorf("remote_cpu: must not be negative, got %d", *m.CPU)
		}
		if err := cpu.Check(*m.CPU); err != nil {
			return nil, fmt.Errorf("remote_cpu: %w", err)
		}
	}
	return w, nil
}

// bounded checks one value a client sent: outside [lo, hard] it is
// malformed; above limit it exceeds the operator's bound set by flagName.
func bounded(what, flagName string, v, lo, hard, limit int64) error {
	if v < lo || v > hard {
		return fmt.Errorf("%s %d out of range %d-%d", what, v, lo, hard)
	}
	if v > limit {
		return &limits.Exceeded{What: what, Got: strconv.FormatInt(v, 10) + " bytes",
			Limit: strconv.FormatInt(limit, 10) + " bytes", Flag: flagName}
	}
	return nil
}

func checkDuration(l *limits.Limits, ns int64) error {
	if ns < 0 || ns > int64(spec.MaxDuration) {
		return fmt.Errorf("duration out of range 0-%v", spec.MaxDuration)
	}
	return l.Duration(time.Duration(ns))
}

func checkPort(l *limits.Limits, port int) error {
	if port < 0 || port > 65535 {
		return fmt.Errorf("data port %d out of range", port)
	}
	return l.Port(port)
}

// checkFlows checks the number of flows against --max-flows (and the
// protocol's bound) and each flow's data port against --data-ports.
func checkFlows(l *limits.Limits, m *proto.Setup) error {
	if m.Flows < 0 || m.Flows > spec.MaxFlows {
		return fmt.Errorf("flows %d out of range 1-%d", m.Flows, spec.MaxFlows)
	}
	if m.Flows > l.MaxFlows {
		return &limits.Exceeded{What: "flows", Got: strconv.Itoa(m.Flows), Limit: strconv.Itoa(l.MaxFlows), Flag: "max-flows"}
	}
	if len(m.DataPorts) > max(m.Flows, 1) {
		return fmt.Errorf("data ports: %d for %d flows", len(m.DataPorts), max(m.Flows, 1))
	}
	for _, p := range m.DataPorts {
		if err := checkPort(l, p); err != nil {
			return err
		}
	}
	return nil
}

// checkOther checks the values no operator setting bounds.
func checkOther(w *spec.Workload, m *proto.Setup) error {
	switch {
	case m.Burst < 0 || m.Burst > spec.MaxBurst:
		return fmt.Errorf("burst %d out of range 0-%d", m.Burst, spec.MaxBurst)
	case len(m.Brand) > 1024:
		return errors.New("brand longer than 1024 bytes")
	case math.IsNaN(m.Rate) || m.Rate < 0 || m.Rate > spec.MaxRate:
		return fmt.Errorf("rate %v out of range 0-%g", m.Rate, spec.MaxRate)
	case m.FastOpen && !w.Accepts(spec.OptFastOpen):
		return fmt.Errorf("fastopen does not apply to %s", w)
	case m.Bytes > 0 && !w.ServerSends:
		return fmt.Errorf("a byte count applies to the server only when it sends, not in %s", w)
	case !w.Messages && (m.Request != 0 || m.Response != 0):
		return fmt.Errorf("%s carries no request or response", w)
	}
	return nil
}

// connRate returns the check of --max-conn-rate for a test of w (nil but
// for a workload with a connection per transaction), which its accept loop
// calls every workload.CRRCheckEvery connections.
func (s *Server) connRate(w *spec.Workload) func() error {
	if !w.PerTransaction {
		return nil
	}
	return limits.NewConnRate(s.lim.MaxConnRate, workload.CRRCheckEvery).Check
}
