package values

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

// Record is a read-only Starlark view of an engine value (a struct whose
// json tags name its fields). Results, latency summaries and configs are
// Records; `dir(r)` lists the fields and r.to_dict() copies them into plain
// dicts and lists.
type Record struct {
	typeName string
	v        reflect.Value // a struct
	str      func() string // the short form printed by str() and the REPL
}

var (
	_ starlark.HasAttrs = (*Record)(nil)
	_ starlark.Value    = (*Record)(nil)
)

// NewRecord wraps a pointer to a struct.
func NewRecord(typeName string, ptr any, str func() string) *Record {
	v := reflect.ValueOf(ptr)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	return &Record{typeName: typeName, v: v, str: str}
}

// Value returns the wrapped Go value (a pointer-free copy of the struct).
func (r *Record) Value() any { return r.v.Addr().Interface() }

// String is the short readable form.
func (r *Record) String() string {
	if r.str != nil {
		return r.str()
	}
	var b strings.Builder
	b.WriteString(r.typeName + "(")
	for _, name := range r.AttrNames() {
		if name == "to_dict" {
			continue
		}
		if b.Len() > len(r.typeName)+1 {
			b.WriteString(", ")
		}
		v, _ := r.Attr(name)
		b.WriteString(name + " = " + fieldText(r.typeName+"."+name, v))
	}
	b.WriteString(")")
	return b.String()
}

// fieldText is how String shows the field at path: floats with the digits
// a measurement has, as table() prints them (to_dict() keeps every digit).
func fieldText(path string, v starlark.Value) string {
	if f, ok := v.(starlark.Float); ok && !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
		if u := unitOf(path); u != "" {
			return FloatText(path, float64(f)) + " " + u
		}
		return FloatText(path, float64(f))
	}
	return v.String()
}

// FieldUnit is the unit of the result field at path ("latency.p99",
// "config.request", "elapsed"), as an axis title or a printed record
// gives it: "" for a count, or a figure whose unit the result names
// itself (throughput and its units).
func FieldUnit(path string) string {
	if !strings.Contains(path, ".") {
		path = "result." + path
	}
	if typ, name, _ := strings.Cut(path, "."); typ == "config" {
		switch name {
		case "request", "response", "send_size", "recv_size", "bytes":
			return "bytes"
		}
	}
	return unitOf(path)
}

// unitOf is the unit a record's printed form gives the figure at path
// (a record's type and field, "latency.p99"), "" for one that has none
// or whose unit the record itself names (a throughput and its units).
func unitOf(path string) string {
	typ, name, _ := strings.Cut(path, ".")
	switch {
	case typ == "latency" && name != "count", typ == "censored":
		return "us"
	case typ == "config" && (name == "duration" || name == "timeout" || name == "interval"),
		name == "elapsed", name == "start_skew", name == "first_skew":
		return "s"
	case strings.HasSuffix(name, "_cpu") || strings.HasSuffix(name, "_pct"):
		return "%"
	}
	return ""
}

// Type returns the Starlark type name ("result", "latency", ...).
func (r *Record) Type() string { return r.typeName }

// Freeze does nothing: a Record is immutable.
func (r *Record) Freeze() {}

// Truth is always true.
func (r *Record) Truth() starlark.Bool { return true }

// Hash refuses: records are not hashable.
func (r *Record) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: %s", r.typeName) }

// fieldIndex maps json names to struct field indexes.
func fieldIndex(t reflect.Type) map[string]int {
	m := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" {
			continue
		}
		m[name] = i
	}
	return m
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name
}

// Attr returns the field called name, or the to_dict method.
func (r *Record) Attr(name string) (starlark.Value, error) {
	if name == "to_dict" {
		return starlark.NewBuiltin("to_dict", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
				return nil, err
			}
			return toPlain(r.v), nil
		}), nil
	}
	i, ok := fieldIndex(r.v.Type())[name]
	if !ok {
		if d, ok := derivedOf(r.v); ok {
			if x, ok := d.Derived(name); ok {
				return toStarlark(reflect.ValueOf(x)), nil
			}
		}
		return nil, nil // starlark reports "has no .name field or method"
	}
	if !reported(r.v, name) {
		return starlark.None, nil
	}
	if l := latencyAttr(r.v, name); l != nil {
		return l, nil // with its histogram
	}
	return toStarlark(r.v.Field(i)), nil
}

// AttrNames lists the fields (sorted) and to_dict.
func (r *Record) AttrNames() []string {
	var names []string
	for n := range fieldIndex(r.v.Type()) {
		names = append(names, n)
	}
	if d, ok := derivedOf(r.v); ok {
		names = append(names, d.DerivedNames()...)
	}
	names = append(names, "to_dict")
	sort.Strings(names)
	return names
}

// derived is a struct with fields computed from its others (result.ok).
type derived interface {
	DerivedNames() []string
	Derived(name string) (any, bool)
}

// derivedOf returns v's derived fields, if it has any.
func derivedOf(v reflect.Value) (derived, bool) {
	if !v.CanInterface() {
		return nil, false
	}
	d, ok := v.Interface().(derived)
	return d, ok
}

// partial is a struct some of whose fields its source may not report
// (result.Remote toward a netserver): those read as None.
type partial interface{ Reported(name string) bool }

// reported reports whether the struct v's field called name holds a
// figure its source reported.
func reported(v reflect.Value, name string) bool {
	if !v.CanInterface() {
		return true
	}
	p, ok := v.Interface().(partial)
	return !ok || p.Reported(name)
}

// toStarlark converts a field: nested structs stay Records, maps and slices
// become frozen dicts and lists, nil pointers become None.
func toStarlark(v reflect.Value) starlark.Value {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return starlark.None
		}
		return toStarlark(v.Elem())
	case reflect.Struct:
		name := strings.ToLower(v.Type().Name())
		return &Record{typeName: name, v: v}
	case reflect.Map:
		d := starlark.NewDict(v.Len())
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			d.SetKey(toStarlark(k), toStarlark(v.MapIndex(k)))
		}
		d.Freeze()
		return d
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			l := starlark.NewList(nil)
			l.Freeze()
			return l
		}
		elems := make([]starlark.Value, v.Len())
		for i := range elems {
			elems[i] = toStarlark(v.Index(i))
		}
		l := starlark.NewList(elems)
		l.Freeze()
		return l
	}
	return scalar(v)
}

// toPlain converts a value into plain dicts, lists and scalars (what
// json.encode accepts).
func toPlain(v reflect.Value) starlark.Value {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return starlark.None
		}
		return toPlain(v.Elem())
	case reflect.Struct:
		t := v.Type()
		d := starlark.NewDict(t.NumField())
		for i := 0; i < t.NumField(); i++ {
			if name := jsonName(t.Field(i)); name != "" {
				if !reported(v, name) {
					d.SetKey(starlark.String(name), starlark.None)
					continue
				}
				d.SetKey(starlark.String(name), toPlain(v.Field(i)))
			}
		}
		if dv, ok := derivedOf(v); ok {
			for _, name := range dv.DerivedNames() {
				x, _ := dv.Derived(name)
				d.SetKey(starlark.String(name), toPlain(reflect.ValueOf(x)))
			}
		}
		return d
	case reflect.Map:
		d := starlark.NewDict(v.Len())
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			d.SetKey(toPlain(k), toPlain(v.MapIndex(k)))
		}
		return d
	case reflect.Slice, reflect.Array:
		elems := make([]starlark.Value, v.Len())
		for i := range elems {
			elems[i] = toPlain(v.Index(i))
		}
		return starlark.NewList(elems)
	}
	return scalar(v)
}

func scalar(v reflect.Value) starlark.Value {
	switch v.Kind() {
	case reflect.String:
		return starlark.String(v.String())
	case reflect.Bool:
		return starlark.Bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return starlark.MakeInt64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return starlark.MakeUint64(v.Uint())
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return starlark.None
		}
		return starlark.Float(f)
	}
	return starlark.String(fmt.Sprint(v.Interface()))
}

// ShortRepr is v's repr, cut to a length that fits an error line.
func ShortRepr(v starlark.Value) string {
	s := v.String()
	if _, ok := v.(starlark.String); ok {
		s = fmt.Sprintf("%q", string(v.(starlark.String)))
	}
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}
