// Package concurrency is the module of parallel() and aggregate(): a
// script's functions run at once on threads of their own, their tests
// started together at one instant (a start barrier each test waits at
// once it is set up), what the branches share frozen first (share.go), and
// results of one kind combined as the flows of one test.
package concurrency

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.starlark.net/starlark"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/starlib/module"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

// Module is parallel() and aggregate(), with their help.
var Module = &module.Module{
	Name: "concurrency",
	Members: starlark.StringDict{
		"parallel":  starlark.NewBuiltin("parallel", parallelBuiltin),
		"aggregate": starlark.NewBuiltin("aggregate", aggregateBuiltin),
	},
	Help: doc,
	Index: map[string]string{
		"parallel":  "functions run at once; their tests share one start",
		"aggregate": "results of one kind combined: sums, merged latency",
	},
	Keywords: map[string][]string{
		"parallel":  {"fns"},
		"aggregate": {"results"},
	},
}

// doc documents parallel() and aggregate() for help().
var doc = map[string]string{
	"parallel": `parallel(fns) -> list

Calls every function of fns (functions of no arguments) at once, each on
its own thread, and returns their values in order. Every test started
inside waits, once it is set up, for the tests of the other branches that
are still running, and they all start at one instant a few ms ahead, so
their figures cover the same window: a bulk tcp_stream beside a tcp_rr
probe measures latency under load. A branch that ends stops counting, so
the others never wait for it. An error in one branch stops the others and
is reported with the branch's index.

The branches run at once, so what they share is frozen before they start,
as Starlark shares values between threads: the globals their functions
use (and those of the functions these call), the variables they close
over and their default values. Reading them is fine; changing one in a
branch (shared.append(x)) is an error, "cannot append to frozen list",
and the value stays frozen after parallel() returns. Globals no branch
uses stay as they were. Have each branch return what it makes:
  bulk, probe = parallel([lambda: tcp_stream(duration=10),
                          lambda: tcp_rr(duration=10)])
  rows.append(probe.latency.p99)   # fine: no branch uses rows`,
	"aggregate": `aggregate(results) -> result

Combines results of one workload kind as if they were the flows of one
test: counts, errors and throughput summed, latency from the merged
histograms (every transaction of every result), elapsed the longest, flows
every result's flows, start_skew the spread of every flow's first
transaction. Results of different kinds are an error.
  print(aggregate(parallel([lambda: tcp_rr(host=h) for h in hosts])))`,
}

// groupLead is how far ahead of the moment the last branch arrives the
// common start is set: time for every test's parked threads to wake.
const groupLead = 5 * time.Millisecond

// maxGroupWait bounds how long a test that is set up waits for the other
// branches' tests. The server side of a test waits for it at most its
// grace period (30 s) past the test's length, so a longer wait would end
// in an obscure error there instead of a clear one here.
const maxGroupWait = 20 * time.Second

// group is the start barrier of one parallel() call: every workload started
// inside it arrives once it is set up, and the tests that have arrived are
// released together, at one instant a little ahead, when every branch that
// is still running has a test waiting. A branch that finishes leaves, so
// no one waits for it.
type group struct {
	mu      sync.Mutex
	active  int // branches still running
	waiting []*arrival
}

// arrival is one test waiting at the barrier.
type arrival struct {
	branch int
	lead   time.Duration
	start  chan time.Time
}

var _ client.Gate = (*branchGate)(nil)

// branchGate is a group as one branch's tests see it.
type branchGate struct {
	g      *group
	branch int
}

// Arrive waits until every running branch has a test waiting, then
// returns their common start.
func (b *branchGate) Arrive(ctx context.Context, lead time.Duration) (time.Time, error) {
	g := b.g
	a := &arrival{branch: b.branch, lead: lead, start: make(chan time.Time, 1)}
	g.mu.Lock()
	g.waiting = append(g.waiting, a)
	g.release()
	g.mu.Unlock()
	timer := time.NewTimer(maxGroupWait)
	defer timer.Stop()
	select {
	case t := <-a.start:
		return t, nil
	case <-ctx.Done():
		if t, ok := g.withdraw(a); ok {
			return t, nil
		}
		return time.Time{}, ctx.Err()
	case <-timer.C:
		if t, ok := g.withdraw(a); ok {
			return t, nil
		}
		return time.Time{}, fmt.Errorf("parallel: branch %d's test waited %v for the tests of the other branches to be ready; "+
			"the tests of parallel() start together, so each branch must reach its next test while the others wait "+
			"(give the branches the same sequence of tests)", b.branch, maxGroupWait)
	}
}

// withdraw takes a out of the waiting list; if it was released meanwhile
// it returns its start instead.
func (g *group) withdraw(a *arrival) (time.Time, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, w := range g.waiting {
		if w == a {
			g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
			return time.Time{}, false
		}
	}
	return <-a.start, true
}

// leave is called when a branch ends.
func (g *group) leave() {
	g.mu.Lock()
	g.active--
	g.release()
	g.mu.Unlock()
}

// release starts the waiting tests if every running branch has one
// waiting. Called with g.mu held.
func (g *group) release() {
	if len(g.waiting) == 0 || len(g.waiting) < g.active {
		return
	}
	lead := groupLead
	for _, a := range g.waiting {
		lead = max(lead, a.lead)
	}
	t0 := time.Now().Add(lead)
	for _, a := range g.waiting {
		a.start <- t0
	}
	g.waiting = nil
}

// parallelBuiltin: parallel(fns) calls every zero-argument callable of fns
// at once, each on its own Starlark thread, and returns their values in
// order. Every workload started inside shares the start barrier, so tests
// in different branches measure the same window. An error in one branch
// stops the others and is reported with its branch's index.
func parallelBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fv starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fns", &fv); err != nil {
		return nil, err
	}
	fns, err := callables(b.Name(), fv)
	if err != nil {
		return nil, err
	}
	if thread.Gate(th) != nil {
		return nil, fmt.Errorf("%s: called inside a branch of another parallel(); give the outer parallel() all the branches", b.Name())
	}
	// The branches run at once: what they share must be frozen first.
	freezeShared(th, fns)
	ctx, cancel := context.WithCancel(thread.Context(th))
	defer cancel()
	g := &group{active: len(fns)}
	out := make([]starlark.Value, len(fns))
	errs := make([]error, len(fns))
	threads := make([]*starlark.Thread, len(fns))
	var mu sync.Mutex
	failed := -1 // the branch that failed first
	var wg sync.WaitGroup
	printer := th.Print
	if printer != nil {
		// One line at a time, whatever the writer.
		var printMu sync.Mutex
		printer = func(t *starlark.Thread, msg string) {
			printMu.Lock()
			defer printMu.Unlock()
			th.Print(t, msg)
		}
	}
	for i := range fns {
		bt := thread.NewBranch(th, fmt.Sprintf("%s/%d", th.Name, i), ctx, &branchGate{g: g, branch: i})
		bt.Print = printer
		threads[i] = bt
	}
	// Ctrl-C (the caller's context) stops every branch's own code too.
	stopAll := context.AfterFunc(ctx, func() {
		for _, bt := range threads {
			bt.Cancel("stopped")
		}
	})
	defer stopAll()
	for i, fn := range fns {
		wg.Go(func() {
			defer g.leave()
			v, err := starlark.Call(threads[i], fn, nil, nil)
			if err != nil {
				mu.Lock()
				if failed < 0 {
					failed = i
				}
				mu.Unlock()
				errs[i] = err
				cancel() // stop the other branches
				return
			}
			out[i] = v
		})
	}
	wg.Wait()
	if failed >= 0 {
		return nil, fmt.Errorf("%s: %w", b.Name(), branchError(failed, errs[failed]))
	}
	if err := thread.Context(th).Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	return starlark.NewList(out), nil
}

// branchError names the branch an error came from, keeping the test's own
// partial result reachable (errors.As finds a *client.TestError).
func branchError(i int, err error) error {
	msg := err.Error()
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		msg = frozenHint(ee.Msg, ee)
	}
	return &BranchError{Branch: i, Msg: msg, Err: err}
}

// BranchError is an error in one branch of parallel().
type BranchError struct {
	Branch int    // index in fns
	Msg    string // the branch's error message
	Err    error  // the branch's error
}

// Error names the branch and gives its error.
func (e *BranchError) Error() string { return fmt.Sprintf("branch %d: %s", e.Branch, e.Msg) }

// Unwrap returns the branch's error.
func (e *BranchError) Unwrap() error { return e.Err }

// callables reads parallel()'s list of zero-argument callables.
func callables(builtin string, v starlark.Value) ([]starlark.Callable, error) {
	it, ok := v.(starlark.Iterable)
	if !ok || isString(v) {
		return nil, fmt.Errorf("%s: fns must be a list of functions of no arguments (for example [lambda: tcp_rr(duration=5), f]), got %s", builtin, v.Type())
	}
	var out []starlark.Callable
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for i := 0; iter.Next(&x); i++ {
		c, ok := x.(starlark.Callable)
		if !ok {
			return nil, fmt.Errorf("%s: fns[%d] is a %s, not a function (give a function of no arguments, for example lambda: tcp_rr(duration=5))", builtin, i, x.Type())
		}
		out = append(out, c)
	}
	return out, nil
}

// aggregateBuiltin: aggregate(results) combines results of one workload
// kind into one, as if they were the flows of one test.
func aggregateBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rv starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "results", &rv); err != nil {
		return nil, err
	}
	it, ok := rv.(starlark.Iterable)
	if !ok || isString(rv) {
		return nil, fmt.Errorf("%s: results must be a list of results, got %s", b.Name(), rv.Type())
	}
	var rs []*result.Result
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for i := 0; iter.Next(&x); i++ {
		rec, ok := x.(*values.Record)
		var r *result.Result
		if ok {
			r, ok = rec.Value().(*result.Result)
		}
		if !ok {
			return nil, fmt.Errorf("%s: results[%d] is a %s, not a result", b.Name(), i, x.Type())
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("%s: results is empty", b.Name())
	}
	agg, err := result.Aggregate(rs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return values.NewResult(agg), nil
}

// isString reports whether v is a string, which is iterable too.
func isString(v starlark.Value) bool {
	_, ok := v.(starlark.String)
	return ok
}
