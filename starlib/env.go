package starlib

import (
	"context"
	"fmt"

	"go.starlark.net/starlark"

	"netscript/session"
)

// thread-local keys.
const (
	localSession = "netscript.session"
	localCtx     = "netscript.ctx"
)

// NewThread returns a Starlark thread whose builtins use the session s and
// stop when ctx is cancelled. print() writes to s.Stdout.
func NewThread(name string, s *session.Session, ctx context.Context) *starlark.Thread {
	th := &starlark.Thread{
		Name:  name,
		Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(s.Stdout, msg) },
	}
	th.SetLocal(localSession, s)
	th.SetLocal(localCtx, ctx)
	return th
}

// SetContext replaces the thread's cancellation context (the REPL gives each
// statement its own).
func SetContext(th *starlark.Thread, ctx context.Context) { th.SetLocal(localCtx, ctx) }

// NewLoadThread returns the thread that runs a module th loads: the same
// session, cancellation context and print function; set its Load.
func NewLoadThread(th *starlark.Thread, name string) *starlark.Thread {
	child := &starlark.Thread{Name: name, Print: th.Print}
	for _, k := range []string{localSession, localCtx} {
		child.SetLocal(k, th.Local(k))
	}
	return child
}

// Context returns the cancellation context of what th runs now (Ctrl-C
// cancels it); context.Background() if it has none.
func Context(th *starlark.Thread) context.Context { return ctxOf(th) }

func envOf(th *starlark.Thread) (*session.Session, error) {
	e, ok := th.Local(localSession).(*session.Session)
	if !ok {
		return nil, fmt.Errorf("internal error: thread has no netscript environment")
	}
	return e, nil
}

func ctxOf(th *starlark.Thread) context.Context {
	if c, ok := th.Local(localCtx).(context.Context); ok {
		return c
	}
	return context.Background()
}
