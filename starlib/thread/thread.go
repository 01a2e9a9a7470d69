// Package thread is the one way a builtin reaches the run it is part of:
// a Starlark thread made here carries the run's session (the embedded
// server, the output streams, the hooks; package session), the context
// that Ctrl-C cancels, and, in a branch of parallel(), the start barrier
// its tests wait at. Builtins ask for them with Session, Context and Gate;
// what a module keeps for the length of a run (defaults()) it keeps with
// State, and parallel() reads which globals a function uses from the
// syntax kept with KeepSyntax.
//
// Front ends make the thread of a script or a REPL with New; load() runs
// a module on NewLoad's, parallel() each branch on NewBranch's.
package thread

import (
	"context"
	"fmt"

	"go.starlark.net/starlark"

	"netscript/engine/client"
	"netscript/session"
)

// thread-local keys.
const (
	localSession = "netscript.session"
	localCtx     = "netscript.ctx"
	localGate    = "netscript.gate"
	// starlarktest's reporter, copied into branches so assert.* works there.
	localReporter = "Reporter"
)

// New returns a Starlark thread whose builtins use the session s and stop
// when ctx is cancelled. print() writes to s.Stdout.
func New(name string, s *session.Session, ctx context.Context) *starlark.Thread {
	th := &starlark.Thread{
		Name:  name,
		Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(s.Stdout, msg) },
	}
	th.SetLocal(localSession, s)
	th.SetLocal(localCtx, ctx)
	limitSteps(th, s)
	return th
}

// limitSteps gives th the session's step budget (Limits.Steps), if any:
// each thread of a run, its loads and its parallel branches, has it.
func limitSteps(th *starlark.Thread, s *session.Session) {
	if s != nil && s.Limits.Steps > 0 {
		th.SetMaxExecutionSteps(s.Limits.Steps)
	}
}

// SetContext replaces the thread's cancellation context (the REPL gives each
// statement its own).
func SetContext(th *starlark.Thread, ctx context.Context) { th.SetLocal(localCtx, ctx) }

// NewLoad returns the thread that runs a module th loads: the same
// session, cancellation context and print function; set its Load.
func NewLoad(th *starlark.Thread, name string) *starlark.Thread {
	child := &starlark.Thread{Name: name, Print: th.Print}
	for _, k := range []string{localSession, localCtx} {
		child.SetLocal(k, th.Local(k))
	}
	s, _ := th.Local(localSession).(*session.Session)
	limitSteps(child, s)
	return child
}

// NewBranch returns the thread of one branch of parallel() that th calls:
// the same session, print and load functions (and a test's reporter, for
// assert.*), the branch's context, and gate, the start barrier every test
// started in the branch waits at.
func NewBranch(th *starlark.Thread, name string, ctx context.Context, gate client.Gate) *starlark.Thread {
	bt := &starlark.Thread{Name: name, Print: th.Print, Load: th.Load}
	bt.SetLocal(localSession, th.Local(localSession))
	bt.SetLocal(localCtx, ctx)
	bt.SetLocal(localGate, gate)
	s, _ := th.Local(localSession).(*session.Session)
	limitSteps(bt, s)
	if r := th.Local(localReporter); r != nil {
		bt.SetLocal(localReporter, r)
	}
	return bt
}

// Session returns the session th runs in.
func Session(th *starlark.Thread) (*session.Session, error) {
	s, ok := th.Local(localSession).(*session.Session)
	if !ok {
		return nil, fmt.Errorf("internal error: thread has no netscript environment")
	}
	return s, nil
}

// Context returns the cancellation context of what th runs now (Ctrl-C
// cancels it); context.Background() if it has none.
func Context(th *starlark.Thread) context.Context {
	if c, ok := th.Local(localCtx).(context.Context); ok {
		return c
	}
	return context.Background()
}

// Gate returns the start barrier of the parallel() branch th runs, or nil
// outside parallel().
func Gate(th *starlark.Thread) client.Gate {
	g, _ := th.Local(localGate).(client.Gate)
	return g
}

// State returns what a module keeps for the length of th's session under
// key, made by init on first use (session.Session.State).
func State(th *starlark.Thread, key any, init func() any) (any, error) {
	s, err := Session(th)
	if err != nil {
		return nil, err
	}
	return s.State(key, init), nil
}
