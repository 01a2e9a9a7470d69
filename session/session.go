package session

import (
	"io"
	"net/netip"
	"os"
	"sync"

	"netscript/engine/auth"
	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/server"
	"netscript/engine/sock"
	"netscript/engine/sysinfo"
	"netscript/engine/workload"
	"netscript/session/embedded"
	"netscript/session/progress"
)

// Session is what the tests of one netscript process share: the embedded
// loopback server (started on first use), the accounting of data-path
// threads, where output goes and who is told of results. main creates one
// and closes it at exit.
type Session struct {
	Version string    // netscript's release, as `netscript version` prints it
	Commit  string    // the commit it was built from, for env() and records
	Stdout  io.Writer // print() and output builtins
	Stderr  io.Writer // warnings and progress

	// Progress, if set, shows live progress of tests and iterations.
	Progress progress.Reporter
	// OnResult, if set, is given every result a test produces, including
	// the partial one of a test cut short (--record keeps them).
	OnResult ResultFunc
	// OnInterim, if set, is given every interim sample of a test run with
	// interval= (--json-lines writes them), besides the live display.
	OnInterim func(client.Interim)
	// OnFailed, if set, is told of every test that failed with nothing
	// measured (test is netperf's name, "TCP_RR"), so a stream of
	// results shows the failure where OnResult has no result to give.
	OnFailed func(test, brand string, err error)
	// OnCheck, if set, is given every check() the script states, as it
	// is stated (--json-lines writes them).
	OnCheck func(Check)

	// Threads counts the data-path threads of the tests this session runs
	// and of its embedded server.
	Threads workload.Threads

	// ServerCommand, if set, is how to start the embedded loopback server
	// as a separate process: the netscript binary and "serve" (main sets
	// it). Without it the embedded server runs inside this process, which
	// is faster than a real server on one CPU; see embedded.Process.
	ServerCommand []string

	// Token, if set, is the secret every test proves to its server (and
	// asks the server to prove), and the one the embedded server asks of
	// this session's tests. main loads it from --token-file or
	// $NETSCRIPT_TOKEN; nothing reads the environment after that.
	Token auth.Token

	// KeepGoing keeps every test's failure as a failed result instead of
	// ending the run (netscript --keep-going); see Run.
	KeepGoing bool

	// Target, if its Host is set, is where workload calls that name no
	// host go (netscript --host); see Target.
	Target Target

	// Perms, if set, are what the running script may read, write and
	// reach (Run checks each test against them before it starts); nil
	// allows everything, for the person's own typing (-c, the REPL,
	// netperf's command line).
	Perms *Permissions
	// Limits bound a script's steps, memory, size and pictures; the zero
	// value bounds nothing (see DefaultLimits).
	Limits Limits

	mu       sync.Mutex
	embedded *server.Server
	proc     *embedded.Process
	addrs    map[sock.Family]netip.AddrPort

	failed failures  // the tests that failed, for the run's end
	warned warnedSet // the warnings given so far, by cause

	stateMu sync.Mutex
	state   map[any]any // what front ends keep for the session, by key
	checks  checkList   // the checks stated so far, under stateMu
}

// ResultFunc receives a test's result; err, if not nil, says why the test
// was cut short and res is what it measured until then.
type ResultFunc func(res *result.Result, err error)

// New returns a session writing to the process's stdout and stderr.
func New(version string) *Session {
	return &Session{Version: version, Stdout: os.Stdout, Stderr: os.Stderr}
}

// SysInfo describes this machine and the netscript build the session
// runs, as env() and records give it.
func (s *Session) SysInfo() sysinfo.Info {
	return sysinfo.Collect(s.Version, s.Commit)
}

// State returns what a front end keeps for the length of the session under
// key (a Starlark runtime's defaults, the syntax trees it ran), made by
// init on first use. A key is a value of a type its owner does not export,
// as a context's keys are, so owners never meet.
func (s *Session) State(key any, init func() any) any {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if v, ok := s.state[key]; ok {
		return v
	}
	if s.state == nil {
		s.state = map[any]any{}
	}
	v := init()
	s.state[key] = v
	return v
}

// Close stops the embedded server, if it was started.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.embedded != nil {
		s.embedded.Close()
		s.embedded = nil
	}
	if s.proc != nil {
		s.proc.Close()
		s.proc = nil
	}
	return nil
}
