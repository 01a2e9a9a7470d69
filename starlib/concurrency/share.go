package concurrency

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/starlib/thread"
)

// What the branches of parallel() share, and why it is frozen.
//
// Starlark lets threads share only frozen values: a mutable list or dict
// is not safe for two threads at once (even iterating one writes to it,
// to detect a change while it is iterated), and a module's globals are
// frozen when it ends so that loading it elsewhere is safe. parallel()
// applies the same rule at its start. Before any branch runs, it freezes
// every value the branches can reach: the functions' default values and
// the variables they close over, and the globals (and predeclared names)
// their bodies use, following the functions those name, as far as they
// reach. Changing such a value in a branch is then Starlark's own error
// ("cannot append to frozen list"), never a data race; and it stays
// frozen after parallel() returns, as a loaded module's globals stay.
//
// Globals no branch uses are left alone, so the script goes on as before:
// rows.append(parallel(...)[0]) works as long as no branch names rows.
// Freezing the whole module instead would be simpler, but would break
// exactly that common pattern (scripts/latency_under_load.star). Where
// the syntax of a function is not known (thread.KeepSyntax), every global of
// its module is frozen.

// freezeShared freezes what the callables fns can reach (see above).
func freezeShared(th *starlark.Thread, fns []starlark.Callable) {
	z := &freezer{th: th, seen: map[starlark.Value]bool{}, globals: map[*starlark.Module]starlark.StringDict{}}
	for _, fn := range fns {
		z.value(fn)
	}
}

// freezer walks values, freezing each and following the functions it
// meets into the globals they use.
type freezer struct {
	th      *starlark.Thread        // whose session ran the syntax
	seen    map[starlark.Value]bool // functions, lists, dicts and sets already walked
	globals map[*starlark.Module]starlark.StringDict
}

// value freezes v and everything reachable from it.
func (z *freezer) value(v starlark.Value) {
	if v == nil {
		return
	}
	switch x := v.(type) {
	case *starlark.Function:
		if z.visit(x) {
			for i := 0; i < x.NumParams(); i++ {
				z.value(x.ParamDefault(i))
			}
			for i := 0; i < x.NumFreeVars(); i++ {
				_, fv := x.FreeVar(i)
				z.value(fv)
			}
			z.uses(x)
		}
	case *starlark.Builtin:
		z.value(x.Receiver()) // a bound method: list.append and the like
	case *starlark.List:
		if z.visit(x) {
			for i := 0; i < x.Len(); i++ {
				z.value(x.Index(i))
			}
		}
	case starlark.Tuple:
		for _, e := range x {
			z.value(e)
		}
	case *starlark.Dict:
		if z.visit(x) {
			for _, kv := range x.Items() {
				z.value(kv[0])
				z.value(kv[1])
			}
		}
	case *starlark.Set:
		if z.visit(x) {
			for e := range x.Elements() {
				z.value(e)
			}
		}
	}
	v.Freeze()
}

// visit reports whether v is met for the first time.
func (z *freezer) visit(v starlark.Value) bool {
	if z.seen[v] {
		return false
	}
	z.seen[v] = true
	return true
}

// uses freezes the globals and predeclared values fn's body names; all
// of its module's, when its syntax is not known.
func (z *freezer) uses(fn *starlark.Function) {
	m := fn.Module()
	if m == nil {
		return
	}
	g, ok := z.globals[m]
	if !ok {
		g = m.Globals()
		z.globals[m] = g
	}
	pre := m.Predeclared()
	names, known := thread.NamesOf(z.th, fn)
	if !known {
		for _, v := range g {
			z.value(v)
		}
		for _, v := range pre {
			z.value(v)
		}
		return
	}
	for _, n := range names {
		if v, ok := g[n]; ok {
			z.value(v)
		} else if v, ok := pre[n]; ok {
			z.value(v)
		}
	}
}

// frozenHint is added to a branch's error that comes from changing a
// frozen value: where it happened and why the value is frozen.
func frozenHint(msg string, ee *starlark.EvalError) string {
	if !strings.Contains(msg, "cannot ") || !strings.Contains(msg, " frozen ") {
		return msg
	}
	where := ""
	for i := len(ee.CallStack) - 1; i >= 0; i-- {
		if f := ee.CallStack[i]; f.Pos.Filename() != "<builtin>" {
			where = f.Pos.String() + ": "
			break
		}
	}
	return fmt.Sprintf("%s (%sthe branches of parallel() share this value, so it is frozen; return what a branch makes instead)", msg, where)
}
