// Package workloads is the module of the tests themselves: one builtin
// per workload of the registry (spec.Workloads; tcp_rr, tcp_crr, udp_rr,
// ...) and defaults(). A call's keyword options become a spec.Spec
// through one table of options (options.go, knobs.go), the script's
// defaults and target fill in what it leaves out (defaults.go), and the
// session runs it (session.Session.Run). The engine's typed errors and
// notes come back in a script's words: the keyword that does it, the
// command that starts what is missing (advice.go, scriptterms.go).
package workloads

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/engine/spec"
	"netscript/session"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

// newWorkloadBuiltin returns the builtin that runs workload w.
func newWorkloadBuiltin(w *spec.Workload) *starlark.Builtin {
	return starlark.NewBuiltin(w.Name, func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if env, err := thread.Session(th); err == nil {
			kwargs = withDefaults(env, w, kwargs)
		}
		s, err := parseSpec(w, args, kwargs)
		if err != nil {
			return nil, nameOnce(b.Name(), fmt.Errorf("%s: %w", b.Name(), advise(err, w)))
		}
		res, err := runSpec(th, s, b.Name(), keepGoing(kwargs))
		if err != nil {
			return nil, err
		}
		return values.NewResult(res), nil
	})
}

// runSpec runs one test through the session, in a script's terms, and
// warns of what a user must know before trusting its result.
func runSpec(th *starlark.Thread, s spec.Spec, name string, keep bool) (*result.Result, error) {
	env, err := thread.Session(th)
	if err != nil {
		return nil, err
	}
	words := func(res *result.Result, err error, embedded bool) error {
		return builtinError(name, s.Workload, scriptWords(res, err, embedded))
	}
	res, err := env.Run(thread.Context(th), s, session.RunOptions{Gate: thread.Gate(th), Words: words, KeepGoing: keep})
	warn(env, s.Workload, res)
	return res, err
}

// keepGoing reads the keep_going option of a call (its own or defaults()'s),
// which parseSpec has checked: it is the session's policy for the test
// (session.RunOptions.KeepGoing), not part of the test.
func keepGoing(kwargs []starlark.Tuple) bool {
	for _, kv := range kwargs {
		if kv[0] == starlark.String("keep_going") {
			return kv[1] == starlark.True
		}
	}
	return false
}

// builtinError is err as the builtin called name returns it: advised, and
// named once. A failed result kept going past carries the same text.
func builtinError(name string, w *spec.Workload, err error) error {
	if err == nil {
		return nil
	}
	err = advise(err, w)
	if strings.HasPrefix(err.Error(), name+": ") {
		return err // the engine named the workload already
	}
	return nameOnce(name, fmt.Errorf("%s: %w", name, err))
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
