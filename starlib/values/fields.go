package values

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

// Fields is a read-only Starlark value with named fields, the kind that
// confidence(), compare() and stats.ci() return. `dir(v)` lists the fields,
// v.to_dict() copies them into plain dicts and lists for json.encode, and
// str(v) is a short summary.
type Fields struct {
	typeName string
	names    []string // in the order to_dict() gives them
	values   map[string]starlark.Value
	str      func() string
}

var (
	_ starlark.HasAttrs = (*Fields)(nil)
	_ starlark.Value    = (*Fields)(nil)
)

// NewFields returns an empty value of the given type; add fields with Set.
func NewFields(typeName string) *Fields {
	return &Fields{typeName: typeName, values: map[string]starlark.Value{}}
}

// Set adds or replaces a field; values are frozen when the Fields is.
func (f *Fields) Set(name string, v starlark.Value) {
	if _, ok := f.values[name]; !ok {
		f.names = append(f.names, name)
	}
	f.values[name] = v
}

// SetString sets the short readable form print() and the REPL show; by
// default every field is listed.
func (f *Fields) SetString(str func() string) { f.str = str }

// String is the short readable form print() and the REPL show.
func (f *Fields) String() string {
	if f.str != nil {
		return f.str()
	}
	var b strings.Builder
	b.WriteString(f.typeName + "(")
	for i, n := range f.names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n + " = " + f.values[n].String())
	}
	return b.String() + ")"
}

// Type returns the Starlark type name ("confidence", "comparison", ...).
func (f *Fields) Type() string { return f.typeName }

// Freeze freezes every field value.
func (f *Fields) Freeze() {
	for _, v := range f.values {
		v.Freeze()
	}
}

// Truth is always true.
func (f *Fields) Truth() starlark.Bool { return true }

// Hash refuses: these values are not hashable.
func (f *Fields) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: %s", f.typeName) }

// Attr returns the field called name, or the to_dict method.
func (f *Fields) Attr(name string) (starlark.Value, error) {
	if name == "to_dict" {
		return starlark.NewBuiltin("to_dict", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
				return nil, err
			}
			return Plain(f), nil
		}), nil
	}
	return f.values[name], nil // nil: starlark reports the missing field
}

// AttrNames lists the fields (sorted) and to_dict.
func (f *Fields) AttrNames() []string {
	names := append([]string{"to_dict"}, f.names...)
	sort.Strings(names)
	return names
}

// Plain copies v into plain dicts, lists and scalars (what json.encode
// accepts): records and Fields become dicts, tuples become lists.
func Plain(v starlark.Value) starlark.Value {
	switch x := v.(type) {
	case *Record:
		return toPlain(x.v)
	case *Latency:
		return toPlain(x.v)
	case *Fields:
		d := starlark.NewDict(len(x.names))
		for _, n := range x.names {
			d.SetKey(starlark.String(n), Plain(x.values[n]))
		}
		return d
	case *starlark.List:
		elems := make([]starlark.Value, x.Len())
		for i := range elems {
			elems[i] = Plain(x.Index(i))
		}
		return starlark.NewList(elems)
	case starlark.Tuple:
		elems := make([]starlark.Value, len(x))
		for i := range x {
			elems[i] = Plain(x[i])
		}
		return starlark.NewList(elems)
	case *starlark.Dict:
		d := starlark.NewDict(x.Len())
		for _, kv := range x.Items() {
			d.SetKey(kv[0], Plain(kv[1]))
		}
		return d
	}
	return v
}
