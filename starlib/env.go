package starlib

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sync"

	"go.starlark.net/starlark"

	"netscript/engine/auth"
	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/server"
	"netscript/engine/sock"
	"netscript/engine/spec"
	"netscript/engine/workload"
	"netscript/internal/serveadvice"
	"netscript/session/embedded"
	"netscript/session/progress"
)

// Env is what the builtins of one netscript process share: the embedded
// loopback server (started on first use), the accounting of data-path
// threads, and where output goes. main creates one and closes it at exit.
type Env struct {
	Version string    // netscript's release, as `netscript version` prints it
	Commit  string    // the commit it was built from, for env() and records
	Stdout  io.Writer // print() and output builtins
	Stderr  io.Writer // warnings and progress

	// Progress, if set, shows live progress of tests and iterations.
	Progress progress.Reporter
	// OnResult, if set, is given every result a test produces, including
	// the partial one of a test cut short (--record keeps them).
	OnResult ResultFunc

	Threads workload.Threads

	// ServerCommand, if set, is how to start the embedded loopback server
	// as a separate process: the netscript binary and "serve" (main sets
	// it). Without it the embedded server runs inside this process, which
	// is faster than a real server on one CPU; see embedded.Process.
	ServerCommand []string

	// Token, if set, is the secret every test proves to its server (and
	// asks the server to prove), and the one the embedded server asks of
	// this script's tests. main loads it from --token-file or
	// $NETSCRIPT_TOKEN; nothing reads the environment after that.
	Token auth.Token

	syntax syntaxes // what ExecFile and KeepSyntax kept, for parallel()

	mu       sync.Mutex
	embedded *server.Server
	proc     *embedded.Process
	addrs    map[sock.Family]netip.AddrPort

	// Target, if its Host is set, is where workload calls that name no
	// host go (netscript --host); see Target.
	Target Target
	// OnInterim, if set, is given every interim sample of a test run with
	// interval= (--json-lines writes them), besides the live display.
	OnInterim func(client.Interim)

	defaults defaultSet // what defaults() set
	warned   warnedSet  // the warnings given so far, by cause

	// OnFailed, if set, is told of every test that failed with nothing
	// measured (test is netperf's name, "TCP_RR"), so a stream of
	// results shows the failure where OnResult has no result to give.
	OnFailed func(test, brand string, err error)
}

// ResultFunc receives a test's result; err, if not nil, says why the test
// was cut short and res is what it measured until then.
type ResultFunc func(res *result.Result, err error)

// resultMade hands a test's result to Env.OnResult: the whole result, or
// the partial one of a test cut short; a test that measured nothing goes
// to Env.OnFailed. runSpec calls it for every test.
func (e *Env) resultMade(s *spec.Spec, res *result.Result, err error) {
	var te *client.TestError
	if res == nil && errors.As(err, &te) {
		res = te.Partial
	}
	switch {
	case res != nil && e.OnResult != nil:
		e.OnResult(res, err)
	case res == nil && err != nil && e.OnFailed != nil:
		e.OnFailed(s.Workload.String(), s.Brand, err)
	}
}

// NewEnv returns an environment writing to the process's stdout and stderr.
func NewEnv(version string) *Env {
	return &Env{Version: version, Stdout: os.Stdout, Stderr: os.Stderr}
}

// Embedded returns the control address of the embedded loopback server for
// the family, starting the server on first use. It listens on 127.0.0.1 and,
// for IPv6 tests, on ::1, on ports the kernel chooses.
func (e *Env) Embedded(fam sock.Family) (netip.AddrPort, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.ServerCommand) > 0 {
		return e.embeddedProcess(fam)
	}
	if ap, ok := e.addrs[fam]; ok {
		return ap, nil
	}
	if e.embedded == nil {
		e.embedded = server.New(server.Config{Version: e.Version, Threads: &e.Threads, Token: e.Token, Explain: serveadvice.Explain})
		e.addrs = map[sock.Family]netip.AddrPort{}
	}
	lo := sock.Loopback(fam)
	a, err := e.embedded.Listen(netip.AddrPortFrom(lo, 0).String())
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("embedded server: %w", err)
	}
	ap := netip.MustParseAddrPort(a.String())
	e.addrs[fam] = ap
	if fam == sock.Auto {
		e.addrs[sock.Inet] = ap
	} else if fam == sock.Inet {
		e.addrs[sock.Auto] = ap
	}
	return ap, nil
}

// embeddedProcess returns the address of the embedded server process,
// starting it (again, if it died) when needed.
func (e *Env) embeddedProcess(fam sock.Family) (netip.AddrPort, error) {
	if e.proc != nil && !e.proc.Alive() {
		e.proc.Close()
		e.proc = nil
	}
	if e.proc == nil {
		p, err := embedded.Start(e.ServerCommand, e.Token)
		if err != nil {
			return netip.AddrPort{}, err
		}
		e.proc = p
	}
	ap, ok := e.proc.Addr(fam)
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("embedded server: no %s loopback address on this machine", fam)
	}
	return ap, nil
}

// Close stops the embedded server, if it was started.
func (e *Env) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.embedded != nil {
		e.embedded.Close()
		e.embedded = nil
	}
	if e.proc != nil {
		e.proc.Close()
		e.proc = nil
	}
	return nil
}

// thread-local keys.
const (
	localEnv = "netscript.env"
	localCtx = "netscript.ctx"
)

// NewThread returns a Starlark thread whose builtins use env and stop when
// ctx is cancelled. print() writes to env.Stdout.
func NewThread(name string, env *Env, ctx context.Context) *starlark.Thread {
	th := &starlark.Thread{
		Name:  name,
		Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(env.Stdout, msg) },
	}
	th.SetLocal(localEnv, env)
	th.SetLocal(localCtx, ctx)
	return th
}

// SetContext replaces the thread's cancellation context (the REPL gives each
// statement its own).
func SetContext(th *starlark.Thread, ctx context.Context) { th.SetLocal(localCtx, ctx) }

// NewLoadThread returns the thread that runs a module th loads: the same
// environment, cancellation context and print function; set its Load.
func NewLoadThread(th *starlark.Thread, name string) *starlark.Thread {
	child := &starlark.Thread{Name: name, Print: th.Print}
	for _, k := range []string{localEnv, localCtx} {
		child.SetLocal(k, th.Local(k))
	}
	return child
}

// Context returns the cancellation context of what th runs now (Ctrl-C
// cancels it); context.Background() if it has none.
func Context(th *starlark.Thread) context.Context { return ctxOf(th) }

func envOf(th *starlark.Thread) (*Env, error) {
	e, ok := th.Local(localEnv).(*Env)
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
