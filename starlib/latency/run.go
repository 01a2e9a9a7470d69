package latency

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/session"
	"netscript/starlib/thread"
)

// target is where a call's tests go: host and port as host= and port=
// give them, else the script's target (--host), else the embedded server.
type target struct {
	host string
	port int
}

// targetOf reads host= and port= of a call, filling in the session's
// target when host is not given.
func targetOf(env *session.Session, host string, port int) (target, error) {
	if host == "" {
		host = env.Target.Host
		if port == 0 {
			port = env.Target.Port
		}
	}
	if host != "" {
		h, p, err := session.SplitHostPort(host)
		if err != nil {
			return target{}, fmt.Errorf("host: %w", err)
		}
		host = h
		if p != 0 {
			port = p
		}
	}
	return target{host: host, port: port}, nil
}

// test is one test of a call: what it runs and what it is called.
type test struct {
	name string // the brand, as flent names its series ("TCP upload BE")
	s    spec.Spec
	// probe: a test of probes that completes no transaction in its time
	// (each waited longer than the test ran) is a result with none, not
	// a failure: under a bloated queue that is what a probe sees.
	probe bool
	// load: a load-generating connection. Once the call has stopped it
	// on purpose, what goes wrong after (a stream's bytes still queued
	// behind the bottleneck when its drain bound passes) is no failure:
	// the call has its figures from the interim samples.
	load bool
	// starvable: a stream that moves no byte in its time is a result of
	// none, not a failure: one that loses to the others at a bottleneck,
	// or on a busy machine, backs off for longer than a short test runs,
	// and that is what the call measures.
	starvable bool
}

// nothingIsResult reports whether err, how the test ended, is its doing
// nothing in its time (client.NoWorkError), which for a probe or a
// starvable stream is a result, not a failure.
func (t test) nothingIsResult(err error) bool {
	var nw *client.NoWorkError
	return (t.probe || t.starvable) && errors.As(err, &nw)
}

// nothingDone returns an error when no test of a call did anything (no
// transaction, no byte), which is no measurement but a peer that does
// not serve them; nil when one did. results are the tests' in order.
func nothingDone(builtin string, tests []test, results []*result.Result) error {
	var first *client.NoWorkError
	for i, res := range results {
		nw := client.NoWork(&tests[i].s, res)
		if nw == nil {
			return nil
		}
		if first == nil {
			first = nw
		}
	}
	if first == nil {
		return nil
	}
	return fmt.Errorf("%s: none of its %d tests did anything; the first: %s: %w", builtin, len(tests), tests[0].name, first)
}

// newTest returns the spec of workload name toward t, with every option
// left at its default but the length and the interim interval.
func newTest(name, workload string, t target, duration, interval time.Duration) (test, error) {
	w, err := spec.LookupWorkload(workload)
	if err != nil {
		return test{}, fmt.Errorf("internal error: %w", err)
	}
	s := spec.Default(w)
	s.Host, s.Brand, s.Duration = t.host, name, duration
	if t.port != 0 {
		s.Port = t.port
	}
	if interval > 0 {
		s.Interval = interval
	}
	return test{name: name, s: s}, nil
}

// bulk is t as a load of the call's: no liveness bound. A stream that
// loses to the others at a small queue backs off for seconds at a time
// (its retransmission timer doubles), which is what the call measures,
// not a dead peer; the call's own length bounds it.
func (t test) bulk() test {
	t.s.Liveness = spec.LivenessOff
	t.load = true
	return t
}

// withTOS marks a test's data sockets on both ends with the byte tos
// (IP_TOS, IPV6_TCLASS).
func (t test) withTOS(tos int) test {
	t.s.Knobs.TOS, t.s.Knobs.HasTOS = tos, true
	return t
}

// runner runs the tests of one call through the session, as the workload
// builtins do, and can stop them early on purpose: a test stopped so
// returns what it measured, not an error.
type runner struct {
	builtin string
	env     *session.Session
	ctx     context.Context // the script's: Ctrl-C
	stopped atomic.Bool     // the call stopped its own tests
}

// newRunner returns the runner of a builtin's call on th. A call inside a
// branch of parallel() is refused: its tests start together on their own
// barrier, which the other branches' tests would wait for in vain.
func newRunner(th *starlark.Thread, builtin string) (*runner, error) {
	env, err := thread.Session(th)
	if err != nil {
		return nil, err
	}
	if thread.Gate(th) != nil {
		return nil, fmt.Errorf("%s: called inside parallel(); it runs its own tests together, so call it on its own", builtin)
	}
	return &runner{builtin: builtin, env: env, ctx: thread.Context(th)}, nil
}

// run runs one test, with gate its start barrier (nil: none) and each
// interim sample handed to interim. A test stopped by the runner's stop
// (ctx cancelled after stop) returns its partial result, or nil if it had
// not started, with no error.
func (r *runner) run(ctx context.Context, t test, gate client.Gate, interim func(client.Interim)) (*result.Result, error) {
	if interim == nil {
		interim = func(client.Interim) {} // no live lines: the call prints its own
	}
	var partial *result.Result
	words := func(res *result.Result, err error, _ bool) error {
		if err != nil && t.nothingIsResult(err) {
			var te *client.TestError
			if errors.As(err, &te) {
				partial = te.Partial
			}
			if res != nil {
				partial = res
			}
			return nil
		}
		if err != nil && r.stopped.Load() && r.ctx.Err() == nil && (t.load || errors.Is(err, context.Canceled)) {
			var te *client.TestError
			if errors.As(err, &te) {
				partial = te.Partial
			}
			if res != nil {
				partial = res
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %w", r.builtin, t.name, err)
		}
		return nil
	}
	res, err := r.env.Run(ctx, t.s, session.RunOptions{Gate: gate, Interim: interim, Words: words})
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted: %w", r.ctx.Err())
		}
		return nil, err
	}
	if res == nil {
		res = partial
	}
	return res, nil
}

// together runs tests at once, started at one instant (a barrier of their
// own), and returns their results in order; the first failure stops the
// others and is returned.
func (r *runner) together(tests []test, interim func(i int, p client.Interim)) ([]*result.Result, error) {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	b := &barrier{want: len(tests)}
	out := make([]*result.Result, len(tests))
	errs := make([]error, len(tests))
	var wg sync.WaitGroup
	for i, t := range tests {
		g := &arrival{b: b}
		wg.Go(func() {
			defer g.leave()
			var f func(client.Interim)
			if interim != nil {
				f = func(p client.Interim) { interim(i, p) }
			}
			out[i], errs[i] = r.run(ctx, t, g, f)
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if err := r.ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for i, res := range out {
		if res == nil {
			return nil, fmt.Errorf("%s: %s: no result", r.builtin, tests[i].name)
		}
	}
	return out, nil
}

// maxBarrierWait bounds how long a test that is set up waits for the
// others of its call, as parallel() bounds its own.
const maxBarrierWait = 20 * time.Second

// barrierLead is how far ahead of the last arrival the common start is.
const barrierLead = 5 * time.Millisecond

// barrier starts the tests of one call together: each arrives once it is
// set up, and when every test still running has arrived they all start at
// one instant a little ahead. A test that ends without arriving (it
// failed in set-up) leaves, so no one waits for it.
type barrier struct {
	mu      sync.Mutex
	want    int
	waiting []chan time.Time
	lead    time.Duration
}

// arrival is one test's place at a barrier.
type arrival struct {
	b       *barrier
	arrived bool
}

var _ client.Gate = (*arrival)(nil)

// Arrive waits until every test still running has arrived, then returns
// their common start.
func (a *arrival) Arrive(ctx context.Context, lead time.Duration) (time.Time, error) {
	b := a.b
	ch := make(chan time.Time, 1)
	b.mu.Lock()
	a.arrived = true
	b.waiting = append(b.waiting, ch)
	b.lead = max(b.lead, lead)
	b.release()
	b.mu.Unlock()
	timer := time.NewTimer(maxBarrierWait)
	defer timer.Stop()
	select {
	case t := <-ch:
		return t, nil
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	case <-timer.C:
		return time.Time{}, fmt.Errorf("waited %v for the other tests of the call to be set up", maxBarrierWait)
	}
}

// leave takes a test that never arrived out of the count.
func (a *arrival) leave() {
	b := a.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if !a.arrived {
		b.want--
		b.release()
	}
}

// release starts the waiting tests once all have arrived. Called with
// b.mu held.
func (b *barrier) release() {
	if len(b.waiting) == 0 || len(b.waiting) < b.want {
		return
	}
	t0 := time.Now().Add(max(b.lead, barrierLead))
	for _, ch := range b.waiting {
		ch <- t0
	}
	b.waiting = nil
}
