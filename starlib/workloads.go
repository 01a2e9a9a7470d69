package starlib

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/session"
)

// newWorkloadBuiltin returns the builtin that runs workload w.
func newWorkloadBuiltin(w *spec.Workload) *starlark.Builtin {
	return starlark.NewBuiltin(w.Name, func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if env, err := envOf(th); err == nil {
			kwargs = withDefaults(env, w, kwargs)
		}
		s, err := parseSpec(w, args, kwargs)
		if err != nil {
			return nil, nameOnce(b.Name(), fmt.Errorf("%s: %w", b.Name(), advise(err, w)))
		}
		res, err := runSpec(th, s)
		if err != nil {
			err = advise(err, w)
			if strings.HasPrefix(err.Error(), b.Name()+": ") {
				return nil, err // the engine named the workload already
			}
			return nil, nameOnce(b.Name(), fmt.Errorf("%s: %w", b.Name(), err))
		}
		return NewResult(res), nil
	})
}

// runSpec runs one test through the session, in a script's terms, and
// warns of what a user must know before trusting its result.
func runSpec(th *starlark.Thread, s spec.Spec) (*result.Result, error) {
	env, err := envOf(th)
	if err != nil {
		return nil, err
	}
	res, err := env.Run(ctxOf(th), s, session.RunOptions{Gate: gateOf(th), Words: scriptWords})
	warn(env, s.Workload, res)
	return res, err
}

// scriptWords words what the engine returned as a script reads it: the
// notes in a script's syntax, and a bound of the embedded server with the
// way around it.
func scriptWords(res *result.Result, err error, embedded bool) error {
	if embedded {
		err = embeddedBound(err)
	}
	scriptNotes(res)
	return err
}

// warn writes to stderr what a user must know before trusting a result: a
// Fast Open test in which Fast Open could not work, once per cause.
func warn(env *session.Session, w *spec.Workload, res *result.Result) {
	if res == nil || res.FastOpen == nil || res.FastOpen.Note == "" || env.Stderr == nil {
		return
	}
	if !env.FirstWarning(w.Name + res.FastOpen.Note) {
		return // once per cause per script; each result's notes keep it
	}
	fmt.Fprintf(env.Stderr, "netscript: warning: %s: fastopen: %s (said once; r.fastopen.note has it for each test)\n", w.Name, res.FastOpen.Note)
}

// NewResult wraps a result as a Starlark value.
func NewResult(r *result.Result) *Record {
	return NewRecord("result", r, func() string { return Summary(r) })
}

// Summary is the one-line form of a result that print() and the REPL show.
func Summary(r *result.Result) string {
	s := fmt.Sprintf("<result %s", r.Test)
	if r.Brand != "" {
		s += fmt.Sprintf(" %q", r.Brand)
	}
	s += fmt.Sprintf(" %.2f %s", r.Throughput, r.Units)
	if r.Latency != nil && r.Latency.Count > 0 {
		s += fmt.Sprintf(" p50=%.1fus p99=%.1fus", r.Latency.P50, r.Latency.P99)
	}
	if r.Units == result.UnitsBits {
		s += fmt.Sprintf(" (%d bytes in %.2fs", max(r.BytesSent, r.BytesReceived), r.Elapsed)
		if r.UDP != nil && r.UDP.LossPct != nil {
			s += fmt.Sprintf(", %.2f%% lost", *r.UDP.LossPct)
		}
	} else {
		s += fmt.Sprintf(" (%d transactions in %.2fs", r.Transactions, r.Elapsed)
	}
	var errs uint64
	for _, n := range r.Errors {
		errs += n
	}
	if errs > 0 {
		s += fmt.Sprintf(", %d errors", errs)
	}
	if n := len(r.Flows); n > 1 {
		s += fmt.Sprintf(", %d flows", n)
		if r.StartSkew != nil {
			s += fmt.Sprintf(", start skew %.0fus", *r.StartSkew*1e6)
		}
	}
	return s + ")>"
}
