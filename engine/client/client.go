// Package client runs a test from the client's side: it talks to the
// server's control endpoint, opens the data connections, runs the workload's
// loop over the measured interval on its own thread, and puts both ends'
// counts into a result.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"

	"netscript/engine/proto"
	"netscript/engine/result"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// Options are the client's settings that are not part of the test itself.
type Options struct {
	Threads  *workload.Threads // shared accounting of data-path threads; a private one if nil
	Embedded bool              // the target is the embedded loopback server (reported as host "")
	// Progress, if set, is called about every ProgressEvery while the test
	// runs, from another goroutine, with the counts so far.
	Progress func(Progress)
}

// controlTimeout bounds each control exchange outside the measured interval.
const controlTimeout = 10 * time.Second

// drainTimeout bounds waiting for the server to finish after the client has
// stopped sending.
const drainTimeout = 2 * time.Second

// TestError is a test that failed after it started: it carries the partial
// result, so what was measured before the failure is not lost.
type TestError struct {
	Err     error
	Partial *result.Result
}

func (e *TestError) Error() string {
	if e.Partial == nil || e.Partial.Transactions == 0 {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v (measured before that: %d transactions in %.3f s, %.2f %s)",
		e.Err, e.Partial.Transactions, e.Partial.Elapsed, e.Partial.Throughput, e.Partial.Units)
}

func (e *TestError) Unwrap() error { return e.Err }

// Run runs the test s against the server at s.Host:s.Port. On a failure
// after the test started it returns a *TestError holding the partial result.
// Cancelling ctx stops the test within one sock.Tick; the session with the
// server is still ended cleanly and the result covers what was measured.
func Run(ctx context.Context, s spec.Spec, opt Options) (*result.Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if opt.Threads == nil {
		opt.Threads = &workload.Threads{}
	}
	ctrlAddr, err := sock.Resolve(ctx, s.Host, s.Port, s.Family)
	if err != nil {
		return nil, &spec.OptionError{Option: "host", Msg: err.Error()}
	}
	pc, err := dial(ctx, ctrlAddr, s.ConnectTimeout)
	if err != nil {
		return nil, err
	}
	defer pc.Close()
	r := &run{spec: s, opt: opt, pc: pc, ctrl: ctrlAddr}
	return r.do(ctx)
}

// dial opens and handshakes the control connection.
func dial(ctx context.Context, addr netip.AddrPort, timeout time.Duration) (*proto.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", addr.String())
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, fmt.Errorf("dial %s: no answer within %v (host down or filtered?)", addr, timeout)
		}
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			cause := oe.Err
			var se interface{ Unwrap() error }
			if errors.As(cause, &se) {
				if inner := se.Unwrap(); inner != nil {
					cause = inner
				}
			}
			return nil, &sock.OpError{Op: "dial", Addr: addr.String(), Err: cause}
		}
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	pc := proto.NewConn(c)
	if err := pc.Handshake(controlTimeout, false); err != nil {
		c.Close()
		return nil, fmt.Errorf("control %s: %w", addr, err)
	}
	return pc, nil
}

// run is one test in progress.
type run struct {
	spec  spec.Spec
	opt   Options
	pc    *proto.Conn
	ctrl  netip.AddrPort
	ready proto.Ready
}

func (r *run) setupMessage() proto.Setup {
	s := &r.spec
	return proto.Setup{
		Test:         s.Workload.String(),
		Request:      s.Request,
		Response:     s.Response,
		Burst:        s.Burst,
		NoDelay:      s.NoDelay,
		DataPort:     s.DataPort,
		DurationNs:   int64(s.Duration),
		Transactions: s.Transactions,
		Brand:        s.Brand,
	}
}

func (r *run) do(ctx context.Context) (*result.Result, error) {
	if err := r.pc.Send(proto.TypeSetup, r.setupMessage(), controlTimeout); err != nil {
		return nil, err
	}
	if err := r.pc.Expect(proto.TypeReady, &r.ready, controlTimeout); err != nil {
		return nil, fmt.Errorf("set-up: %w", err)
	}
	data := netip.AddrPortFrom(r.ctrl.Addr(), uint16(r.ready.DataPort))
	w, err := newWorker(&r.spec, data)
	if err != nil {
		return nil, err
	}
	if r.opt.Progress != nil {
		w.loop().Live = &workload.Live{}
	}
	defer w.close()
	release := r.opt.Threads.Acquire(1)
	defer release()

	// Start: the server takes its snapshot, then the loop begins.
	if err := r.pc.Send(proto.TypeStart, proto.Start{}, controlTimeout); err != nil {
		return nil, err
	}
	if err := r.pc.Expect(proto.TypeStarted, &proto.Started{}, controlTimeout); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	msgs := make(chan message, 1)
	go func() {
		t, p, err := r.pc.Recv(0)
		msgs <- message{t, p, err}
	}()
	if r.opt.Progress != nil {
		base := Progress{Test: r.spec.Workload.String(), Brand: r.spec.Brand, Total: r.spec.Duration, Units: "Trans/s"}
		go watch(w.loop().Live, base, w.done, r.opt.Progress)
	}
	w.start()
	stopOnCancel := context.AfterFunc(ctx, func() { w.stop.Store(true) })
	var ctrlErr error
	var early *message
	select {
	case <-w.done:
	case m := <-msgs:
		// Anything from the server before Stop means the session broke.
		early = &m
		ctrlErr = sessionBroke(m)
		w.stop.Store(true)
		<-w.done
	}
	stopOnCancel()
	w.finish(drainTimeout)

	res := r.build(w)
	testErr := w.loop().Err
	if ctrlErr != nil {
		return res, &TestError{Err: ctrlErr, Partial: res}
	}
	if err := r.pc.Send(proto.TypeStop, proto.Stop{}, controlTimeout); err != nil {
		return res, &TestError{Err: err, Partial: res}
	}
	var m message
	select {
	case m = <-msgs:
	case <-time.After(controlTimeout):
		return res, &TestError{Err: fmt.Errorf("no Results from the server within %v", controlTimeout), Partial: res}
	}
	_ = early
	var rr proto.Results
	if m.err == nil && m.t == proto.TypeResults {
		m.err = proto.Decode(m.t, m.p, &rr)
	} else if m.err == nil {
		m.err = sessionBroke(m)
	}
	if m.err != nil {
		return res, &TestError{Err: fmt.Errorf("results: %w", m.err), Partial: res}
	}
	r.addRemote(res, &rr)
	if testErr != nil {
		return res, &TestError{Err: fmt.Errorf("%s: %w", r.spec.Workload.Builtin(), testErr), Partial: res}
	}
	if ctx.Err() != nil {
		return res, &TestError{Err: fmt.Errorf("interrupted: %w", ctx.Err()), Partial: res}
	}
	return res, nil
}

type message struct {
	t   proto.Type
	p   []byte
	err error
}

// sessionBroke explains a control message (or its absence) that arrived
// while the test was running.
func sessionBroke(m message) error {
	if m.err != nil {
		if errors.Is(m.err, net.ErrClosed) {
			return errors.New("the control connection was closed")
		}
		if errors.Is(m.err, io.EOF) {
			return errors.New("the server closed the control connection during the test")
		}
		return fmt.Errorf("the control connection failed during the test: %v", m.err)
	}
	if m.t == proto.TypeError {
		var e proto.Error
		if proto.Decode(m.t, m.p, &e) == nil {
			return &proto.RemoteError{Message: e.Message}
		}
	}
	return fmt.Errorf("protocol error: unexpected %s during the test", m.t)
}
