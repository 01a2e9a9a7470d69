package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/spec"
)

// failures counts the tests of a session that failed, and keeps the first
// one's error, so a run that kept going past them can say so at its end.
type failures struct {
	mu    sync.Mutex
	n     int
	kept  int
	first string
}

// Failures returns how many tests of the session failed (refused, nothing
// completed, the peer went away, a bound hit), whether their failure ended
// the script or was kept as a failed result, and the first one's error.
// A front end that ran to its end with Failures above zero exits non-zero
// and says so (FailureLine).
func (s *Session) Failures() (n int, first string) {
	s.failed.mu.Lock()
	defer s.failed.mu.Unlock()
	return s.failed.n, s.failed.first
}

// FailureLine is the one line a front end prints at the end of a run that
// kept going past failed tests, "" when none was kept going past: how
// many failed and the first one's error.
func (s *Session) FailureLine() string {
	s.failed.mu.Lock()
	defer s.failed.mu.Unlock()
	if s.failed.kept == 0 {
		return ""
	}
	tests := "tests"
	if s.failed.n == 1 {
		tests = "test"
	}
	return fmt.Sprintf("%d %s failed and the run kept going; the first: %s", s.failed.n, tests, s.failed.first)
}

// noteFailure counts one failed test; kept says the run goes on past it.
func (s *Session) noteFailure(err error, kept bool) {
	s.failed.mu.Lock()
	defer s.failed.mu.Unlock()
	s.failed.n++
	if kept {
		s.failed.kept++
	}
	if s.failed.first == "" {
		s.failed.first = err.Error()
	}
}

// isTestFailure reports whether err is the failure of a test as it ran
// (refused, nothing completed, the peer went away, a bound hit), which a
// script may keep going past, rather than a mistake in how it was asked
// for (an option, a missing data port, a token), a host or a limit the
// person running it did not allow, or the user's interrupt,
// which end the run whatever it asked.
func isTestFailure(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	var oe *spec.OptionError
	var na *spec.NotApplicableError
	var nu *spec.NetserverUnsupportedError
	var fl *spec.FlowListError
	var nr *NetRefusedError
	var le *LimitError
	switch {
	case errors.As(err, &oe), errors.As(err, &na), errors.As(err, &nu), errors.As(err, &fl),
		errors.As(err, &nr), errors.As(err, &le), // the runner's decisions, not the test's failures
		errors.Is(err, spec.ErrNeedsControl), errors.Is(err, spec.ErrNeedsDataPort),
		errors.Is(err, context.Canceled):
		return false
	}
	return true
}

// failedResult is the result a failed test is kept as: what it measured
// before the failure when it measured anything, else the test, brand and
// configuration it was asked for with nothing measured; Error says why.
func failedResult(sp *spec.Spec, res *result.Result, err error) *result.Result {
	var te *client.TestError
	if res == nil && errors.As(err, &te) {
		res = te.Partial
	}
	if res == nil {
		res = &result.Result{
			Test:    sp.Workload.String(),
			Brand:   sp.Brand,
			Units:   result.UnitsTrans,
			Errors:  map[string]uint64{},
			Interim: []result.Sample{},
			Flows:   []*result.Flow{},
			Notes:   []string{},
			Config:  askedConfig(sp),
		}
		if sp.Workload.Bulk {
			res.Units = result.UnitsBits
		}
	}
	res.Error = err.Error()
	return res
}

// askedConfig is the configuration a test was asked for, for a test that
// failed before the engine could say what was in force.
func askedConfig(sp *spec.Spec) result.Config {
	cfg := result.Config{
		Host:         sp.Host,
		Port:         sp.Port,
		DataPort:     sp.DataPort,
		Family:       sp.Family.String(),
		Duration:     sp.Duration.Seconds(),
		Transactions: sp.Transactions,
		Burst:        sp.Burst,
		NoDelay:      sp.NoDelay,
		Local:        sp.Local,
		LocalPort:    sp.LocalPort,
		Bytes:        sp.Bytes,
		Rate:         sp.Rate,
		Interval:     sp.Interval.Seconds(),
		FastOpen:     sp.FastOpen,
		CPUUtil:      sp.CPUUtil,
		Control:      !sp.NoControl,
		CPU:          sp.CPU,
		RemoteCPU:    sp.RemoteCPU,
		Flows:        sp.FlowCount(),
		Client:       sp.Client,
	}
	if sp.Workload.Messages {
		cfg.Request, cfg.Response = sp.Request, sp.Response
	}
	return cfg
}
