package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"netscript/engine/auth"
	"netscript/engine/client"
	"netscript/engine/limits"
	"netscript/engine/proto"
	"netscript/engine/server"
	"netscript/engine/spec"
	"netscript/engine/workload"
)

// Agent is a daemon's side of client=: it runs the client side of the
// tests scripts ask it to run, within the daemon's bounds, only toward
// netscript daemons (each flow's data goes only to an endpoint that showed
// the test's tag on that very port) and only from the machine's own
// addresses.
// Give it to server.Config.Agent (netscript serve --allow-client; without
// that flag the daemon has Off instead).
type Agent struct {
	// Threads is the daemon's accounting of data-path threads.
	Threads *workload.Threads
	// Token, if set, is proved to the servers the tests go to: a mesh of
	// daemons shares one token.
	Token auth.Token
	// Limits bound the tests it runs, as the daemon's bound the tests it
	// serves; limits.Default() if zero.
	Limits limits.Limits
}

var _ server.ClientAgent = (*Agent)(nil)

// goWait bounds how long a daemon that has set up a script's test waits
// for the script's Go (the script may be waiting for tests in other
// branches of a parallel() to be ready).
const goWait = 60 * time.Second

// limits returns the bounds the agent applies.
func (a *Agent) limits() *limits.Limits {
	if a.Limits == (limits.Limits{}) {
		l := limits.Default()
		return &l
	}
	return &a.Limits
}

// ServeClient runs the client side of a test for a script (the script's
// client= option), whose RunClient payload has arrived on sess: the test
// is set up toward the server the spec names, the daemon answers
// ClientReady, echoes the script's Sync messages, starts when Go says,
// and sends the whole result back, histograms included. A Stop from the
// script, or its connection closing, ends the test early; what was
// measured still goes back.
func (a *Agent) ServeClient(ctx context.Context, sess *server.Session, payload []byte) {
	var m proto.RunClient
	if err := proto.Decode(proto.TypeRunClient, payload, &m); err != nil {
		sess.Refuse(err)
		return
	}
	sp, err := m.Test.ToSpec()
	if err != nil {
		sess.Refuse(fmt.Errorf("RunClient: the test: %v", err))
		return
	}
	if err := a.check(&sp); err != nil {
		sess.Refuse(err)
		return
	}
	pc := sess.Conn
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := &remoteGate{pc: pc, goCh: make(chan time.Duration, 1), failed: make(chan error, 1), cancel: cancel}
	go g.read()
	threads := a.Threads
	if threads == nil {
		threads = &workload.Threads{}
	}
	// The client side's threads are the daemon's: charged to its budget.
	// It sends the far end nothing but the preamble: no probes (NoProbes).
	opt := client.Options{Threads: threads, Budgeted: true, Gate: g, ClientName: pc.Net().LocalAddr().String(), Token: a.Token, NoProbes: true}
	res, err := client.Run(ctx, sp, opt)
	if res == nil {
		if err == nil {
			err = errors.New("the test produced no result")
		}
		if errors.Is(err, proto.ErrNotNetscript) {
			// The control handshake comes before any data: the port got
			// the preamble and nothing else.
			err = fmt.Errorf("%w; a daemon runs a test's client side only toward a netscript daemon, and sent it nothing else", err)
		}
		g.send(func() { sess.Refuse(fmt.Errorf("%s: %w", sp.Workload.Name, err)) })
		return
	}
	var te *client.TestError
	if errors.As(err, &te) {
		err = te.Err
	}
	if err != nil {
		err = &explained{err: err, text: sess.Explain(err)} // the daemon's words, as its refusals
	}
	cr, eerr := EncodeResult(res, err)
	if eerr != nil {
		g.send(func() { sess.Refuse(eerr) })
		return
	}
	g.send(func() {
		if err := pc.Send(proto.TypeClientResult, cr, a.limits().HandshakeTimeout); err != nil {
			sess.Logf("%v", err)
		}
	})
}

// check checks a test a script asks this daemon to run: it must name its
// server, not hand the client side on again, go to a netscript daemon (a
// control connection, not a netserver), bind only the machine's own
// source addresses, and fit the daemon's bounds.
// The bounds are the ones a test served here must fit (serve's
// --max-flows, --max-message, --max-buffer, --max-duration), applied to
// what the client side spends on this machine: its flows, its messages and
// its own socket buffers. The server at the other end checks the rest.
func (a *Agent) check(sp *spec.Spec) error {
	if sp.Client != "" {
		return errors.New("client: a daemon runs the client side itself and does not hand it on (client is set)")
	}
	if sp.Host == "" {
		return errors.New("client: needs host, the server this daemon tests against")
	}
	if err := sp.Validate(); err != nil {
		return err
	}
	if err := checkReach(sp); err != nil {
		return err
	}
	if err := checkSources(sp); err != nil {
		return err
	}
	// What the server at the other end is asked for, with this end's own
	// buffers and message sizes (it may be the sender or the receiver);
	// ports and CPU are the other end's (sp.Validate checked this end's
	// CPU).
	local := client.SetupFor(sp)
	local.SendBuffer, local.RecvBuffer = sp.SendBuffer, sp.RecvBuffer
	if sp.Workload.Bulk {
		local.SendSize, local.RecvSize = sp.SendSize, sp.RecvSize
	}
	local.DataPort, local.DataPorts, local.CPU = 0, nil, nil
	if _, err := server.CheckSetup(a.limits(), &local); err != nil {
		return fmt.Errorf("client: this daemon will not run the test: %w", err)
	}
	return nil
}

// remoteGate is the start of a test run for a script: Arrive tells the
// script the test is ready and waits for its Go. It also reads the
// script's control connection for the whole test, echoing Sync and ending
// the test on Stop or when the connection closes.
type remoteGate struct {
	pc     *proto.Conn
	mu     sync.Mutex // one writer at a time
	goCh   chan time.Duration
	failed chan error
	cancel context.CancelFunc
}

var _ client.Gate = (*remoteGate)(nil)

// send runs fn, which writes to the connection, alone.
func (g *remoteGate) send(fn func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	fn()
}

// Arrive says ClientReady and waits for Go; the test starts Go's delay
// after it arrives.
func (g *remoteGate) Arrive(ctx context.Context, _ time.Duration) (time.Time, error) {
	var err error
	g.send(func() { err = g.pc.Send(proto.TypeClientReady, proto.ClientReady{}, 10*time.Second) })
	if err != nil {
		return time.Time{}, err
	}
	select {
	case d := <-g.goCh:
		return time.Now().Add(d), nil
	case err := <-g.failed:
		return time.Time{}, err
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	case <-time.After(goWait):
		return time.Time{}, fmt.Errorf("the script did not say Go within %v of the test being ready", goWait)
	}
}

// read serves the script's messages until the connection ends.
func (g *remoteGate) read() {
	for {
		t, p, err := g.pc.Recv(0)
		if err != nil {
			g.failed <- fmt.Errorf("the script's control connection: %w", err)
			g.cancel()
			return
		}
		switch t {
		case proto.TypeSync:
			var m proto.Sync
			if proto.Decode(t, p, &m) == nil {
				g.send(func() { g.pc.Send(proto.TypeSync, m, 10*time.Second) })
			}
		case proto.TypeGo:
			var m proto.Go
			if err := proto.Decode(t, p, &m); err != nil || m.DelayNs < 0 || m.DelayNs > int64(goWait) {
				g.failed <- fmt.Errorf("a bad Go message: delay %d ns", m.DelayNs)
				g.cancel()
				return
			}
			select {
			case g.goCh <- time.Duration(m.DelayNs):
			default: // a second Go means nothing
			}
		case proto.TypeStop:
			g.cancel() // the script was interrupted: end the test, send what it measured
		default:
			g.failed <- fmt.Errorf("protocol error: unexpected %s from the script", t)
			g.cancel()
			return
		}
	}
}

// explained is an error in the daemon's words (server.Session.Explain);
// it unwraps to the engine's.
type explained struct {
	err  error
	text string
}

func (e *explained) Error() string { return e.text }
func (e *explained) Unwrap() error { return e.err }
