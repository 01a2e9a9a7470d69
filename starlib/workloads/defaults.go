package workloads

import (
	"errors"
	"fmt"
	"sync"

	"go.starlark.net/starlark"

	"netscript/engine/spec"
	"netscript/internal/nearest"
	"netscript/session"
	"netscript/starlib/thread"
)

// defaultSet holds the options defaults() set, for the workload calls that
// follow; the session keeps one per script (or REPL session).
type defaultSet struct {
	mu   sync.Mutex
	vals map[string]starlark.Value // frozen values, by option name
}

// defaultsKey is the key of a session's defaultSet.
type defaultsKey struct{}

// defaultsOf returns the defaults of the session s.
func defaultsOf(s *session.Session) *defaultSet {
	return s.State(defaultsKey{}, func() any { return &defaultSet{} }).(*defaultSet)
}

// lengthOptions end a test; a call that gives one of them replaces a
// default of another (defaults(duration=5) then tcp_rr(transactions=100)).
var lengthOptions = []string{"duration", "transactions", "bytes"}

func isLength(name string) bool {
	for _, n := range lengthOptions {
		if n == name {
			return true
		}
	}
	return false
}

// withDefaults returns the keyword arguments of a call of workload w with
// the script's defaults and target added for what the call leaves out. A
// default w does not take is left out for w (defaults(burst=4) does not
// make tcp_stream fail); an option the call gives wins over its default.
func withDefaults(e *session.Session, w *spec.Workload, kwargs []starlark.Tuple) []starlark.Tuple {
	named := map[string]bool{}
	length := false
	for _, kv := range kwargs {
		n := string(kv[0].(starlark.String))
		named[n] = true
		length = length || isLength(n)
	}
	out := kwargs
	add := func(name string, v starlark.Value) {
		out = append(out[:len(out):len(out)], starlark.Tuple{starlark.String(name), v})
		named[name] = true
	}
	defaults := defaultsOf(e)
	defaults.mu.Lock()
	for _, o := range options { // in the table's order, so errors are stable
		v, ok := defaults.vals[o.name]
		if !ok || named[o.name] || !w.Accepts(o.name) || (length && isLength(o.name)) {
			continue
		}
		add(o.name, v)
	}
	defaults.mu.Unlock()
	if t := e.Target; t.Host != "" && !named["host"] && w.Accepts("host") {
		add("host", starlark.String(t.Host))
		if t.Port != 0 && !named["port"] {
			add("port", starlark.MakeInt(t.Port))
		}
		if t.Server != "" && !named["server"] && w.Accepts("server") {
			add("server", starlark.String(t.Server))
		}
	}
	return out
}

// defaultsKeywords are what defaults() takes: every workload option.
func defaultsKeywords() []string {
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.name
	}
	return names
}

// defaultsBuiltin: defaults(**options) sets, defaults() returns the
// defaults as a dict.
func defaultsBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	env, err := thread.Session(th)
	if err != nil {
		return nil, err
	}
	if len(args) > 0 {
		return nil, fmt.Errorf("%s: takes keyword options only (for example defaults(duration=5)), got %d positional argument(s)", b.Name(), len(args))
	}
	if len(kwargs) > 0 && thread.Gate(th) != nil {
		return nil, fmt.Errorf("%s: called inside a branch of parallel(); set defaults before parallel(), where every branch sees them", b.Name())
	}
	// Check every option first: a bad one changes nothing.
	for _, kv := range kwargs {
		name := string(kv[0].(starlark.String))
		o, ok := findOption(options, name)
		if !ok {
			return nil, fmt.Errorf("%s: %w", b.Name(), unknownDefault(name))
		}
		if kv[1] == starlark.None {
			continue
		}
		var s spec.Spec
		if err := o.set(&s, kv[1]); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), &spec.OptionError{Option: name, Err: err})
		}
		if err := checkRange(name, kv[1]); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
	}
	defaults := defaultsOf(env)
	defaults.mu.Lock()
	defer defaults.mu.Unlock()
	if defaults.vals == nil {
		defaults.vals = map[string]starlark.Value{}
	}
	for _, kv := range kwargs {
		name := string(kv[0].(starlark.String))
		if kv[1] == starlark.None {
			delete(defaults.vals, name) // back to the workload's own default
			continue
		}
		kv[1].Freeze()
		defaults.vals[name] = kv[1]
	}
	if len(kwargs) > 0 {
		return starlark.None, nil
	}
	d := starlark.NewDict(len(defaults.vals))
	for _, o := range options {
		if v, ok := defaults.vals[o.name]; ok {
			d.SetKey(starlark.String(o.name), v)
		}
	}
	return d, nil
}

// needsOthers are options whose check needs another option given with
// them (client= needs host=); defaults() checks them at each call instead.
var needsOthers = map[string]bool{"client": true, "control": true, "server": true}

// checkRange checks a default's value as the first workload that takes it
// would (defaults(port=70000) fails now, not at every call after it). A
// range that differs between workloads (udp_rr's request) is checked at
// each call.
func checkRange(name string, v starlark.Value) error {
	if needsOthers[name] {
		return nil
	}
	for _, w := range spec.Workloads() {
		if !w.Accepts(name) {
			continue
		}
		_, err := parseSpec(w, nil, []starlark.Tuple{{starlark.String(name), v}})
		var oe *spec.OptionError
		if errors.As(err, &oe) && oe.Option == name {
			return err
		}
		return nil
	}
	return nil
}

// unknownDefault explains an option name no workload takes, with the
// nearest one.
func unknownDefault(name string) error {
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.name
	}
	msg := fmt.Sprintf("unknown option %s", name)
	if best := nearest.Name(name, names); best != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", best)
	}
	return fmt.Errorf("%s; help(tcp_rr) and the other workloads list their options", msg)
}

// defaultsDoc documents defaults().
const defaultsDoc = `defaults(option=value, ...) -> None; defaults() -> dict

Sets default options for the workload calls that follow, in this script
and the modules it loads: any workload option (help(tcp_rr) lists them).
An option given in a call wins over its default, and a call that gives
duration, transactions or bytes drops the default of the other two. A
default applies only to the workloads that take it: defaults(burst=4)
changes tcp_rr, and tcp_stream runs as if it were not set. None removes
a default; defaults() with no options returns the defaults set. Each
value is checked as a workload call checks it, and a name no workload
takes is an error. Set defaults before parallel(); its branches see
them. netscript --host sets the default host the same way, for calls
that name no host.
  defaults(duration=5, nodelay=True)
  r = tcp_rr()          # 5 s, TCP_NODELAY
  s = tcp_rr(duration=1)`
