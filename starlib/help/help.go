// Package help is the module of help(): what a name, a value or a
// function is and how to use it, and the list of every predeclared name.
// It knows no builtin of its own accord: it reads the documentation every
// module gives (module.Module's Help, Index and Members) from the list the
// table (package starlib) hands New, so a new builtin documents itself in
// its own module.
package help

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/starlark"

	"netscript/starlib/module"
	"netscript/starlib/values"
)

// New returns the documentation of the modules mods and the module of
// help() over them (Module): help() documents every name they and it
// give, and lists them.
func New(mods []*module.Module) *Docs {
	d := &Docs{}
	d.module = &module.Module{
		Name:    "help",
		Members: starlark.StringDict{"help": starlark.NewBuiltin("help", d.builtin)},
		Help:    map[string]string{"help": helpDoc},
		Index:   map[string]string{"help": "this list; help(x) documents x"},
	}
	d.mods = append(append([]*module.Module(nil), mods...), d.module)
	return d
}

// Docs is the documentation of a list of modules, as help() reads it.
type Docs struct {
	mods   []*module.Module // the modules, help's last
	module *module.Module
}

// Module is the module of help() itself.
func (d *Docs) Module() *module.Module { return d.module }

// helpDoc documents help().
const helpDoc = `help(x=None) -> None

Prints what x is and how to use it: a builtin's arguments and options with
their defaults, a module's members, a result's fields, or a function's
docstring. help() lists every builtin.`

// builtin prints documentation through the thread's print function.
func (d *Docs) builtin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "x?", &x); err != nil {
		return nil, err
	}
	text, err := d.Help(x)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if th.Print != nil {
		th.Print(th, text)
	} else {
		fmt.Println(text)
	}
	return starlark.None, nil
}

// Help returns the documentation of x, what help(x) prints: None gives the
// list of builtins, a string names a builtin.
func (d *Docs) Help(x starlark.Value) (string, error) {
	switch v := x.(type) {
	case starlark.NoneType:
		return d.Index(), nil
	case starlark.String:
		if p, ok := d.Predeclared()[string(v)]; ok {
			return d.Help(p)
		}
		if doc, ok := d.Lookup(string(v)); ok {
			return doc, nil
		}
		return "", fmt.Errorf("no builtin is called %q; help() lists them", string(v))
	case *starlark.Builtin:
		name := v.Name()
		if doc, ok := d.Lookup(name); ok {
			return doc, nil
		}
		if r := v.Receiver(); r != nil {
			return fmt.Sprintf("%s: a method of %s", name, r.Type()), nil
		}
		return fmt.Sprintf("%s: a builtin; no documentation yet", name), nil
	case *starlark.Function:
		return helpFunction(v), nil
	case *values.Latency:
		doc, _ := d.Lookup("latency")
		return doc, nil
	case *values.Record:
		if v.Type() == "result" {
			return values.ResultDoc, nil
		}
		if doc, ok := d.Lookup(v.Type()); ok {
			return doc, nil
		}
		return fmt.Sprintf("a %s with fields %s", v.Type(), strings.Join(values.FieldNames(v), ", ")), nil
	case starlark.HasAttrs:
		if doc, ok := d.Lookup(helpModuleName(v)); ok {
			return doc, nil
		}
		text := fmt.Sprintf("%s: has %s", helpModuleName(v), strings.Join(values.FieldNames(v), ", "))
		return strings.Join(module.Wrap(text, module.MailWidth-2), "\n"), nil
	}
	return fmt.Sprintf("a %s value: %s", x.Type(), x.String()), nil
}

// Lookup finds the documentation of a name as help("name") takes it
// ("tcp_rr", "stats.ci", "result.tcp"): the text its module gives it.
func (d *Docs) Lookup(name string) (string, bool) {
	for _, m := range d.mods {
		if doc, ok := m.Help[name]; ok {
			return doc, true
		}
	}
	return "", false
}

// Predeclared returns every name the modules give, as a script starts
// with them.
func (d *Docs) Predeclared() starlark.StringDict {
	p := starlark.StringDict{}
	for _, m := range d.mods {
		for name, v := range m.Members {
			p[name] = v
		}
	}
	return p
}

// Keywords lists the keyword arguments a builtin takes, for completion:
// the options of a workload, the parameters of the others.
func (d *Docs) Keywords(builtin string) []string {
	for _, m := range d.mods {
		if k, ok := m.Keywords[builtin]; ok {
			return k
		}
	}
	return nil
}

// KeywordOnly reports whether builtin takes keyword arguments only, as the
// workloads do.
func (d *Docs) KeywordOnly(builtin string) bool {
	for _, m := range d.mods {
		if m.KeywordOnly[builtin] {
			return true
		}
	}
	return false
}

// helpModuleName is the name a module value prints as ("json", "stats").
func helpModuleName(v starlark.Value) string {
	s := v.String()
	s = strings.TrimPrefix(s, "<module ")
	s = strings.TrimSuffix(s, ">")
	return strings.Trim(s, `"`)
}

// Index lists every predeclared name with the first line of its
// documentation, as help() prints it.
func (d *Docs) Index() string {
	pre := d.Predeclared()
	var names []string
	for n := range pre {
		if n != "args" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("Builtins (help(name) for more, such as help(tcp_rr)):\n")
	for _, n := range names {
		line := ""
		if short, ok := d.index(n); ok {
			line = short
		} else if _, ok := pre[n].(starlark.HasAttrs); ok {
			line = "module: " + strings.Join(values.FieldNames(pre[n]), ", ")
		} else if doc, ok := d.Lookup(n); ok {
			line = helpSummary(doc)
		}
		if len(line) > module.MailWidth-16 {
			line = line[:module.MailWidth-19] + "..."
		}
		fmt.Fprintf(&b, "  %-12s  %s\n", n, line)
	}
	b.WriteString("Scripts also have args (the NAME=VALUE pairs) and print().")
	return b.String()
}

// index is the line a module gives its name n in help()'s list.
func (d *Docs) index(n string) (string, bool) {
	for _, m := range d.mods {
		if short, ok := m.Index[n]; ok {
			return short, true
		}
	}
	return "", false
}

// helpSummary is the first sentence of a doc, after a signature line.
func helpSummary(doc string) string {
	lines := strings.Split(doc, "\n")
	if len(lines) > 2 && strings.Contains(lines[0], "(") {
		lines = lines[1:] // a signature
	}
	text := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	if i := strings.Index(text, ". "); i > 0 {
		text = text[:i]
	}
	return strings.TrimSuffix(text, ".")
}

// helpFunction documents a script's own function: signature and docstring.
func helpFunction(fn *starlark.Function) string {
	var params []string
	for i := 0; i < fn.NumParams(); i++ {
		name, _ := fn.Param(i)
		if d := fn.ParamDefault(i); d != nil {
			name += "=" + d.String()
		}
		params = append(params, name)
	}
	s := fmt.Sprintf("%s(%s)  defined at %s", fn.Name(), strings.Join(params, ", "), fn.Position())
	if doc := strings.TrimSpace(fn.Doc()); doc != "" {
		s += "\n\n" + doc
	}
	return s
}
