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
	"strings"
	"sync"
	"syscall"
	"time"

	"netscript/engine/auth"
	"netscript/engine/limits"
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
	// Interim, if set, is called with each interim sample (the interval
	// option) as soon as the loop has taken it, from another goroutine.
	Interim func(Interim)
	// Token is the secret to prove to servers that ask for one, and to ask
	// every server to prove; nil: this client has none (the front end
	// loads it, auth.LoadToken).
	Token auth.Token
	// ClientName, set by a daemon that runs the client side for a script
	// (client=), is reported as result.config.client.
	ClientName string
	// Budgeted charges the test's threads to Threads' budget (a daemon
	// that runs the client side for a script, whose threads are the
	// daemon's): a test that does not fit is refused.
	Budgeted bool
	// Gate, if set, releases this test together with others (parallel()):
	// the test arrives once it is set up and starts at the instant the
	// gate gives.
	Gate Gate
	// Detail, if set, is filled with what the test's sockets and far end
	// tell beyond the result (netperf's output selectors need it).
	Detail *Detail
	// Netperf, if set, is what a netperf command line asks of a netserver
	// beyond the spec (a test against a netserver only).
	Netperf *NetperfRequest
	// NoProbes keeps the client from asking a far end that does not greet
	// what it is on connections of its own (probe.go), so that it sends
	// it nothing but the preamble: a daemon that runs the client side for
	// a script sends nothing else to a host the script named.
	NoProbes bool

	noTCP bool // runWithout: do not ask the server for TCP_INFO
}

// Gate releases several tests into their measured intervals together.
type Gate interface {
	// Arrive is called by a test that is set up (data connections open,
	// threads parked, the server told to start) and returns the instant
	// its measured interval begins. lead is the least time the test needs
	// between the release and that instant (0: the gate's own). It returns
	// early with an error if ctx ends.
	Arrive(ctx context.Context, lead time.Duration) (time.Time, error)
}

// startLead is how far ahead of now the flows of one test are told to
// start: time for the parked threads to wake and wait for the instant.
func startLead(threads int) time.Duration {
	return 2*time.Millisecond + time.Duration(threads)*50*time.Microsecond
}

// maxResultsFrame bounds the server's Results message, which carries a line
// per connection for a test of many flows.
const maxResultsFrame = 16 << 20

// ControlTimeout bounds each control exchange outside the measured
// interval.
const ControlTimeout = 10 * time.Second

// drainTimeout bounds waiting for the server to finish after the client has
// stopped sending.
const drainTimeout = 2 * time.Second

// TestError is a test that failed after it started: it carries the partial
// result, so what was measured before the failure is not lost.
type TestError struct {
	Err     error
	Partial *result.Result
}

// Error is the cause, and what was measured before it: transactions for
// request/response tests, bytes for streams.
func (e *TestError) Error() string {
	p := e.Partial
	switch {
	case p == nil:
	case p.Units == result.UnitsBits && p.BytesSent+p.BytesReceived > 0:
		return fmt.Sprintf("%v (measured before that: %d bytes sent and %d received in %.3f s, %.2f %s)",
			e.Err, p.BytesSent, p.BytesReceived, p.Elapsed, p.Throughput, p.Units)
	case p.Transactions > 0:
		return fmt.Sprintf("%v (measured before that: %d transactions in %.3f s, %.2f %s)",
			e.Err, p.Transactions, p.Elapsed, p.Throughput, p.Units)
	}
	return e.Err.Error()
}

func (e *TestError) Unwrap() error { return e.Err }

// Run runs the test s against the server at s.Host:s.Port from this
// process (a test whose client side runs on a daemon, s.Client, is
// package agent's). On a failure after the test started it returns a
// *TestError holding the partial result. Cancelling ctx stops the test
// within one sock.Tick; the session with the server is still ended cleanly
// and the result covers what was measured.
func Run(ctx context.Context, s spec.Spec, opt Options) (*result.Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Client != "" {
		return nil, spec.Bad("client", "the client side of this test runs on the daemon %s: run it with agent.Run", s.Client)
	}
	if opt.Threads == nil {
		opt.Threads = &workload.Threads{}
	}
	if n := s.FlowCount(); n > 1 {
		// Before the server is asked for anything: the flows must fit in
		// this process's descriptors.
		if err := workload.NeedFDs(n, fmt.Sprintf("%d flows", n)); err != nil {
			return nil, &spec.OptionError{Option: "flows", Err: err}
		}
	}
	if s.NoControl {
		return runNoControl(ctx, s, opt)
	}
	if s.Netserver() {
		return runNetserver(ctx, s, opt)
	}
	ctrlAddr, err := sock.Resolve(ctx, s.Host, s.Port, s.Family)
	if err != nil {
		return nil, &spec.OptionError{Option: "host", Err: err}
	}
	_, live := s.LivenessBound()
	res, err := runOnce(ctx, s, opt, ctrlAddr, live)
	if errors.Is(err, errHeartbeatsRefused) {
		// A server of a release before heartbeats: the same test
		// without them, on a new control connection.
		live = false
		res, err = runOnce(ctx, s, opt, ctrlAddr, false)
	}
	if errors.Is(err, errTCPInfoRefused) {
		// A server of a release before TCP_INFO: the test without the
		// server's figures.
		res, err = runWithout(ctx, s, opt, ctrlAddr, live)
	}
	return res, err
}

// runOnce runs the test on one control connection; beats asks the server
// for heartbeats.
func runOnce(ctx context.Context, s spec.Spec, opt Options, ctrlAddr netip.AddrPort, beats bool) (*result.Result, error) {
	pc, key, err := dial(ctx, ctrlAddr, s.ConnectTimeout, opt.Token, !opt.NoProbes)
	if err != nil {
		return nil, err
	}
	defer pc.Close()
	r := &run{spec: s, opt: opt, pc: pc, ctrl: ctrlAddr, beats: beats, noTCP: opt.noTCP, key: key}
	return r.do(ctx)
}

// run is one test in progress.
type run struct {
	spec  spec.Spec
	opt   Options
	pc    *proto.Conn // nil without a control connection
	ctrl  netip.AddrPort
	ready proto.Ready
	cpu   cpuRun
	w     *worker
	key   []byte // the session's data key (auth.DataKey); nil without a control connection
	beats bool   // ask the server for heartbeats (Setup.HeartbeatNs)

	remoteCPU      *proto.CPUReport // the server's CPU, from Results
	remoteFastOpen uint64           // connections whose SYN data the server took

	noTCP bool // do not ask for the server's TCP_INFO (it does not know it)
}

// SetupFor is the Setup message that asks a server to serve the test s.
func SetupFor(s *spec.Spec) proto.Setup {
	m := proto.Setup{
		Test:         s.Workload.String(),
		Request:      s.Request,
		Response:     s.Response,
		Burst:        s.Burst,
		NoDelay:      s.NoDelay,
		DataPort:     s.DataPort,
		SendBuffer:   s.RemoteSendBuffer,
		RecvBuffer:   s.RemoteRecvBuffer,
		DurationNs:   int64(s.Duration),
		Transactions: s.Transactions,
		Brand:        s.Brand,
		FastOpen:     s.FastOpen,
		CPUUtil:      s.CPUUtil,
		CPU:          s.RemoteCPU,
	}
	if n := s.FlowCount(); n > 1 {
		m.Flows = n
	}
	if len(s.DataPorts) > 0 {
		m.DataPorts, m.DataPort = s.DataPorts, 0
	}
	m.Sources = s.Sources()
	m.TCPInfo, m.Knobs = readsTCP(s), setupKnobs(s)
	if k := s.Workload; k.Bulk {
		if k.ServerSends {
			m.SendSize, m.Bytes, m.Rate = s.SendSize, s.Bytes, s.Rate
		} else {
			m.RecvSize = s.RecvSize
		}
	}
	return m
}

func (r *run) do(ctx context.Context) (*result.Result, error) {
	lv := r.liveness()
	setup := SetupFor(&r.spec)
	if r.beats {
		setup.HeartbeatNs = int64(lv.period)
	}
	setup.TCPInfo = setup.TCPInfo && !r.noTCP
	if err := r.pc.Send(proto.TypeSetup, setup, ControlTimeout); err != nil {
		return nil, err
	}
	if err := r.pc.Expect(proto.TypeReady, &r.ready, ControlTimeout); err != nil {
		if r.beats && proto.HeartbeatRefused(err) {
			r.pc.Recv(ControlTimeout) // until the server has closed, and so let the test go
			return nil, errHeartbeatsRefused
		}
		if setup.TCPInfo && proto.TCPInfoRefused(err) {
			r.pc.Recv(ControlTimeout)
			return nil, errTCPInfoRefused
		}
		return nil, setupError(err)
	}
	lv.beats = r.beats // a server that took the Setup sends them
	w, err := newWorker(&r.spec, r.ctrl.Addr(), r.ready.DataPort, r.key)
	if err != nil {
		return nil, err
	}
	defer w.close()
	r.w = w
	release, err := r.opt.takeThreads(w.threads())
	if err != nil {
		return nil, err
	}
	defer release()

	// Start: the server takes its snapshot, then the loops begin.
	if err := r.pc.Send(proto.TypeStart, proto.Start{}, ControlTimeout); err != nil {
		return nil, err
	}
	if err := r.pc.Expect(proto.TypeStarted, &proto.Started{}, ControlTimeout); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	t0, err := r.startTime(ctx, w)
	if err != nil {
		return nil, err
	}
	lv.start = later(time.Now(), t0) // the flows start at t0, if it is set
	msgs := make(chan message, 1)
	go r.receive(msgs, lv)
	stopBeats := r.heartbeats(lv)
	ctrlErr := r.measure(ctx, w, msgs, t0, lv)
	stopBeats()
	var stalled *StallError
	errors.As(ctrlErr, &stalled)
	r.finish(w, ctrlErr)

	res := r.build(w)
	testErr := w.firstErr()
	if ctrlErr != nil && stalled == nil {
		// The session broke, or the server fell silent: no Results will
		// come.
		return r.fail(res, w, nil, ctrlErr)
	}
	if err := r.pc.Send(proto.TypeStop, proto.Stop{}, ControlTimeout); err != nil {
		return r.fail(res, w, stalled, err)
	}
	if w.kind.ServerSends && stalled == nil {
		// The server stops sending on Stop and closes; what it sent after
		// the interval is read here, so the two ends' counts add up.
		res.Drained = w.drainAfterStop(drainTimeout)
	}
	m, err := r.awaitResults(msgs, lv, stalled != nil)
	if err != nil {
		return r.fail(res, w, stalled, err)
	}
	var rr proto.Results
	var rerr error
	switch {
	case m.err != nil || m.t != proto.TypeResults:
		// The server went away (or broke the protocol) before its
		// results; when it closed the data connection too, that is
		// also why the loop ended.
		rerr = sessionBroke(m)
	default:
		if err := proto.Decode(m.t, m.p, &rr); err != nil {
			rerr = fmt.Errorf("results: %w", err)
		}
	}
	if rerr != nil {
		return r.fail(res, w, stalled, rerr)
	}
	r.addRemote(res, &rr)
	r.figures(res, w)
	return res, r.outcome(ctx, res, stalled, testErr)
}

// startTime is the instant the test's measured interval begins: the
// gate's, a moment ahead for several flows (so every parked thread is
// awake and waiting for it), or zero for one flow (its thread starts when
// it wakes).
func (r *run) startTime(ctx context.Context, w *worker) (time.Time, error) {
	if r.opt.Gate != nil {
		t0, err := r.opt.Gate.Arrive(ctx, startLead(w.threads()))
		if err != nil {
			return time.Time{}, err
		}
		return t0, nil
	}
	if len(w.flows) > 1 {
		return time.Now().Add(startLead(w.threads())), nil
	}
	return time.Time{}, nil
}

// setupError explains a refused Setup; a refusal that names an option
// (the server checks remote_cpu against its own CPUs) becomes an
// OptionError for it.
func setupError(err error) error {
	var re *proto.RemoteError
	if refused := knobRefused(err); refused != nil {
		return refused
	}
	if errors.As(err, &re) {
		for _, opt := range []string{"remote_cpu", "remote_send_buffer", "remote_recv_buffer"} {
			if msg, ok := strings.CutPrefix(re.Message, opt+": "); ok {
				return spec.Bad(opt, "server: %s", msg)
			}
		}
	}
	return fmt.Errorf("set-up: %w", err)
}

// measure runs the measured interval: it releases the flows to start at
// t0 (and starts the CPU measurement, progress and interim watchers) and
// waits for the loops to end, for a control message that says the session
// broke (msgs may be nil without a control connection), or for a failed
// liveness check (watchTest). It returns why it ended the loops early.
func (r *run) measure(ctx context.Context, w *worker, msgs <-chan message, t0 time.Time, lv *liveness) error {
	var lives []*workload.Live
	var ivs []*workload.Interim
	for _, f := range w.flows {
		l := f.base()
		if l == nil {
			// A multiplexed flow: it publishes its counts for the
			// progress display and the stall watch (interim samples
			// keep flows on threads).
			if f.m != nil && (r.opt.Progress != nil || lv.on) {
				f.m.Live = &workload.Live{}
				lives = append(lives, f.m.Live)
			}
			continue
		}
		if r.opt.Progress != nil || r.opt.Interim != nil || lv.on {
			l.Live = &workload.Live{}
			lives = append(lives, l.Live)
		}
		if l.Interim != nil {
			ivs = append(ivs, l.Interim)
		}
	}
	// The watchers end with the loops; measure waits for them, so no
	// callback comes after Run has returned.
	var watchers sync.WaitGroup
	defer watchers.Wait()
	if r.opt.Progress != nil && len(lives) > 0 {
		base := Progress{Test: r.spec.Workload.String(), Brand: r.spec.Brand, Total: r.spec.Duration, Units: r.units()}
		watchers.Go(func() { watch(lives, base, r.spec.Workload.Bulk, w.done, w.withRetransmits(r.opt.Progress)) })
	}
	if r.opt.Interim != nil && len(ivs) > 0 {
		watchers.Go(func() { watchInterim(ivs, r.interimBase(), w.done, r.opt.Interim) })
	}
	r.cpu.begin(r.spec.CPUUtil)
	w.startAt(t0)
	stopOnCancel := context.AfterFunc(ctx, func() { w.stop.Store(true) })
	defer stopOnCancel()
	ctrlErr := r.watchTest(w, msgs, lv, lives)
	switch ctrlErr.(type) {
	case nil:
	case *StallError, *SilentServerError:
		w.abort()
		<-w.done
	default:
		w.stop.Store(true)
		<-w.done
	}
	r.cpu.end()
	return ctrlErr
}

// units of the test's throughput.
func (r *run) units() string {
	if r.spec.Workload.Bulk {
		return result.UnitsBits
	}
	return result.UnitsTrans
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
		// A server that dies (or closes) with our messages unread in its
		// socket resets the connection instead of closing it: the same
		// event for the user, told the same way.
		if errors.Is(m.err, syscall.ECONNRESET) {
			return errors.New("the server closed the control connection during the test (reset)")
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

// takeThreads accounts for the test's n data-path threads: always for a
// script's own tests, within the budget for a daemon's (Budgeted).
func (o *Options) takeThreads(n int) (release func(), err error) {
	if !o.Budgeted {
		return o.Threads.Acquire(n), nil
	}
	release, err = o.Threads.TryAcquire(n)
	if err != nil {
		return nil, fmt.Errorf("this daemon's threads: the test %w", limits.Hit("max-threads", err))
	}
	return release, nil
}
