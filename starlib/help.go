package starlib

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/starlark"

	"netscript/starlib/output"
	"netscript/starlib/values"
)

// outputDoc documents the builtins of this area.
var outputDoc = map[string]string{
	"help": `help(x=None) -> None

Prints what x is and how to use it: a builtin's arguments and options with
their defaults, a module's members, a result's fields, or a function's
docstring. help() lists every builtin.`,
}

// helpBuiltin prints documentation through the thread's print function.
func helpBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "x?", &x); err != nil {
		return nil, err
	}
	text, err := Help(x)
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

// Help returns the documentation of x: None gives the list of builtins, a
// string names a builtin.
func Help(x starlark.Value) (string, error) {
	switch v := x.(type) {
	case starlark.NoneType:
		return helpIndex(), nil
	case starlark.String:
		if d, ok := Predeclared()[string(v)]; ok {
			return Help(d)
		}
		if doc, ok := helpDocOf(string(v)); ok {
			return doc, nil
		}
		return "", fmt.Errorf("no builtin is called %q; help() lists them", string(v))
	case *starlark.Builtin:
		name := v.Name()
		if doc, ok := helpDocOf(name); ok {
			return doc, nil
		}
		if r := v.Receiver(); r != nil {
			return fmt.Sprintf("%s: a method of %s", name, r.Type()), nil
		}
		return fmt.Sprintf("%s: a builtin; no documentation yet", name), nil
	case *starlark.Function:
		return helpFunction(v), nil
	case *values.Latency:
		return values.Module.Help["latency"], nil
	case *values.Record:
		if v.Type() == "result" {
			return values.ResultDoc, nil
		}
		if doc, ok := helpDocOf(v.Type()); ok {
			return doc, nil
		}
		return fmt.Sprintf("a %s with fields %s", v.Type(), strings.Join(output.FieldNames(v), ", ")), nil
	case starlark.HasAttrs:
		if doc, ok := helpDocOf(helpModuleName(v)); ok {
			return doc, nil
		}
		text := fmt.Sprintf("%s: has %s", helpModuleName(v), strings.Join(output.FieldNames(v), ", "))
		return strings.Join(output.Wrap(text, output.MailWidth-2), "\n"), nil
	}
	return fmt.Sprintf("a %s value: %s", x.Type(), x.String()), nil
}

// helpDocOf finds the documentation of a builtin by name: workloads from the
// option table, then this area's and the statistics area's texts.
func helpDocOf(name string) (string, bool) {
	if d, ok := outputDoc[name]; ok {
		return d, true
	}

	for _, m := range modules {
		if d, ok := m.Help[name]; ok {
			return d, true
		}
	}
	return "", false
}

// helpModuleName is the name a module value prints as ("json", "stats").
func helpModuleName(v starlark.Value) string {
	s := v.String()
	s = strings.TrimPrefix(s, "<module ")
	s = strings.TrimSuffix(s, ">")
	return strings.Trim(s, `"`)
}

// Keywords lists the keyword arguments a builtin takes, for completion:
// the options of a workload, the parameters of the others.
func Keywords(builtin string) []string {
	for _, m := range modules {
		if k, ok := m.Keywords[builtin]; ok {
			return k
		}
	}
	return nil
}

// KeywordOnly reports whether builtin takes keyword arguments only, as the
// workloads do.
func KeywordOnly(builtin string) bool {
	for _, m := range modules {
		if m.KeywordOnly[builtin] {
			return true
		}
	}
	return false
}

// indexDoc is the line help() gives each builtin of this area.
var indexDoc = map[string]string{
	"help": "this list; help(x) documents x",
}

// helpIndex lists every predeclared name with the first line of its
// documentation.
func helpIndex() string {
	pre := Predeclared()
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
		if short, ok := moduleIndex(n); ok {
			line = short
		} else if short, ok := indexDoc[n]; ok {
			line = short
		} else if _, ok := pre[n].(starlark.HasAttrs); ok {
			line = "module: " + strings.Join(output.FieldNames(pre[n]), ", ")
		} else if doc, ok := helpDocOf(n); ok {
			line = helpSummary(doc)
		}
		if len(line) > output.MailWidth-16 {
			line = line[:output.MailWidth-19] + "..."
		}
		fmt.Fprintf(&b, "  %-12s  %s\n", n, line)
	}
	b.WriteString("Scripts also have args (the NAME=VALUE pairs) and print().")
	return b.String()
}

// moduleIndex is the line a module gives its name n in help()'s list.
func moduleIndex(n string) (string, bool) {
	for _, m := range modules {
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
