package session

import (
	"context"
	"errors"

	"netscript/engine/agent"
	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/spec"
)

// RunOptions say how Run runs one test beyond its spec: what a front end
// adds to the session's own handling.
type RunOptions struct {
	// Gate, if set, is the start barrier the test waits at once it is set
	// up (the tests of one parallel() call start together).
	Gate client.Gate
	// Interim, if set, shows the test's interim samples instead of the
	// session's display (Progress, or lines on a terminal's stderr), as
	// netperf's demo mode prints them; OnInterim still gets each.
	Interim func(client.Interim)
	// Words, if set, puts what the engine returned in the front end's
	// terms before OnResult and OnFailed see it: it may reword res's notes
	// and returns the error to hand on and to return. embedded says the
	// test ran against the embedded server.
	Words func(res *result.Result, err error, embedded bool) error
	// Netperf, if set, is what netperf's command line asks of a netserver
	// beyond the spec (client.Options.Netperf).
	Netperf *client.NetperfRequest
	// Detail, if set, is filled with what netperf's output shows beyond
	// the result: the data socket at the end, CPU by state, the far end's
	// raw answers (client.Options.Detail).
	Detail *client.Detail
	// KeepGoing keeps this test's failure as a failed result instead of
	// returning it (a script's keep_going=True); the session's KeepGoing
	// does it for every test.
	KeepGoing bool
}

// Run runs one test: against the embedded server when it names no host
// (and has a control connection), through the daemon it names with
// client=, else against its host. Every result, the partial one of a
// test cut short included, goes to OnResult, and a test that measured
// nothing to OnFailed. A test that fails after it started returns a
// *client.TestError whose message carries what was measured until then,
// so it is not lost.
//
// A test that fails as it runs (refused, nothing completed, the peer
// gone, a bound hit; not a mistaken option nor an interrupt) is counted
// (Failures) and, when the session keeps going (KeepGoing, --keep-going)
// or the call asks it to (RunOptions.KeepGoing, keep_going=True), kept as a
// failed result whose Error says why, returned with a nil error: the
// script goes on and the front end exits non-zero at the end.
//
// Every test of every front end passes here: a policy of what a run may
// reach belongs before the test starts.
func (s *Session) Run(ctx context.Context, sp spec.Spec, o RunOptions) (*result.Result, error) {
	res, err := s.run(ctx, &sp, o)
	if isTestFailure(ctx, err) {
		kept := s.KeepGoing || o.KeepGoing
		s.noteFailure(err, kept)
		if kept {
			res = failedResult(&sp, res, err)
			s.resultMade(&sp, res, err)
			return res, nil
		}
	}
	s.resultMade(&sp, res, err)
	return res, err
}

// run runs one test as Run says, without the session's rule on failures.
func (s *Session) run(ctx context.Context, sp *spec.Spec, o RunOptions) (*result.Result, error) {
	opt := client.Options{Threads: &s.Threads, Progress: s.progress(), Interim: s.interim(o.Interim), Gate: o.Gate, Token: s.Token,
		Netperf: o.Netperf, Detail: o.Detail}
	if err := s.Perms.CheckTest(sp, sp.Client == "" && sp.Host == "" && !sp.NoControl); err != nil {
		return nil, err
	}
	if sp.Client != "" {
		// A daemon runs the client side: nothing runs here but the
		// conversation with it.
		opt.Progress, opt.Interim = nil, nil
		res, err := agent.Run(ctx, *sp, opt)
		return res, o.words(res, err, false)
	}
	if sp.Host == "" && !sp.NoControl {
		ap, err := s.Embedded(sp.Family)
		if err != nil {
			return nil, err
		}
		sp.Host, sp.Port = ap.Addr().String(), int(ap.Port())
		opt.Embedded = true
	}
	res, err := client.Run(ctx, *sp, opt)
	err = o.words(res, err, opt.Embedded)
	if s.Progress != nil {
		s.Progress.Done()
	}
	return res, err
}

// words applies Words, if set.
func (o RunOptions) words(res *result.Result, err error, embedded bool) error {
	if o.Words == nil {
		return err
	}
	return o.Words(res, err, embedded)
}

// resultMade hands a test's result to OnResult: the whole result, or the
// partial one of a test cut short; a test that measured nothing goes to
// OnFailed.
func (s *Session) resultMade(sp *spec.Spec, res *result.Result, err error) {
	var te *client.TestError
	if res == nil && errors.As(err, &te) {
		res = te.Partial
	}
	switch {
	case res != nil && s.OnResult != nil:
		s.OnResult(res, err)
	case res == nil && err != nil && s.OnFailed != nil:
		s.OnFailed(sp.Workload.String(), sp.Brand, err)
	}
}
