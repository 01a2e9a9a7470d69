package starlib

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/agent"
	"netscript/engine/client"
	"netscript/engine/result"
	"netscript/engine/spec"
)

// newWorkloadBuiltin returns the builtin that runs workload w.
func newWorkloadBuiltin(w *spec.Workload) *starlark.Builtin {
	return starlark.NewBuiltin(w.Name, func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if env, err := envOf(th); err == nil {
			kwargs = env.withDefaults(w, kwargs)
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

// runSpec runs one test, against the embedded server when no host is given.
func runSpec(th *starlark.Thread, s spec.Spec) (*result.Result, error) {
	env, err := envOf(th)
	if err != nil {
		return nil, err
	}
	opt := client.Options{Threads: &env.Threads, Progress: progressOf(env), Interim: interimOf(env), Gate: gateOf(th), Token: env.Token}
	if s.Client != "" {
		// A daemon runs the client side: nothing runs here but the
		// conversation with it.
		opt.Progress, opt.Interim = nil, nil
		res, err := agent.Run(ctxOf(th), s, opt)
		scriptNotes(res)
		env.resultMade(&s, res, err)
		warn(env, s.Workload, res)
		return res, err
	}
	if s.Host == "" && !s.NoControl {
		ap, err := env.Embedded(s.Family)
		if err != nil {
			return nil, err
		}
		s.Host, s.Port = ap.Addr().String(), int(ap.Port())
		opt.Embedded = true
	}
	// A test that fails after it started returns a *client.TestError whose
	// message carries what was measured until then, so it is not lost.
	res, err := client.Run(ctxOf(th), s, opt)
	if opt.Embedded {
		err = embeddedBound(err)
	}
	scriptNotes(res)
	env.resultMade(&s, res, err)
	if env.Progress != nil {
		env.Progress.Done()
	}
	warn(env, s.Workload, res)
	return res, err
}

// warn writes to stderr what a user must know before trusting a result: a
// Fast Open test in which Fast Open could not work, once per cause.
func warn(env *Env, w *spec.Workload, res *result.Result) {
	if res == nil || res.FastOpen == nil || res.FastOpen.Note == "" || env.Stderr == nil {
		return
	}
	if !env.warned.first(w.Name + res.FastOpen.Note) {
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
