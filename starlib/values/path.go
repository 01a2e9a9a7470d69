package values

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

// Field returns the value at a dotted path ("throughput", "latency.p99",
// "remote.transactions") inside v, which may be a result or any value with
// attributes, or a dict. An unknown name is an error that lists the names
// valid at that level.
func Field(v starlark.Value, path string) (starlark.Value, error) {
	if path == "" {
		return nil, fmt.Errorf("empty field name")
	}
	cur := v
	parts := strings.Split(path, ".")
	for i, name := range parts {
		next, err := Attr(cur, name)
		if err != nil {
			return nil, err
		}
		if next == nil {
			where := "a " + cur.Type()
			if i > 0 {
				where = strings.Join(parts[:i], ".")
			}
			valid := FieldNames(cur)
			if len(valid) == 0 {
				return nil, fmt.Errorf("field %s: %s has no fields", path, where)
			}
			return nil, fmt.Errorf("unknown field %s: %s has %s", path, where, strings.Join(valid, ", "))
		}
		cur = next
	}
	return cur, nil
}

// Attr returns the field name of v (a dict's key or an attribute other than
// to_dict), or nil when v has none.
func Attr(v starlark.Value, name string) (starlark.Value, error) {
	switch x := v.(type) {
	case *starlark.Dict:
		got, found, err := x.Get(starlark.String(name))
		if err != nil || !found {
			return nil, err
		}
		return got, nil
	case starlark.HasAttrs:
		if name == "to_dict" {
			return nil, nil
		}
		return x.Attr(name)
	}
	return nil, nil
}

// FieldNames lists the field names of v (attributes of a record, keys of a
// dict), sorted, without methods.
func FieldNames(v starlark.Value) []string {
	var out []string
	switch x := v.(type) {
	case fielder:
		out = x.FieldNames()
	case *starlark.Dict:
		for _, k := range x.Keys() {
			if s, ok := starlark.AsString(k); ok {
				out = append(out, s)
			}
		}
	case starlark.HasAttrs:
		for _, n := range x.AttrNames() {
			if n != "to_dict" {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// fielder is a value whose fields are not all its attributes: r.latency,
// whose percentile() and histogram are not fields (nor in to_dict()).
type fielder interface{ FieldNames() []string }

// NumericFields lists the dotted paths of v whose values are numbers,
// descending into nested records and dicts (for error messages that say
// which metrics a result has).
func NumericFields(v starlark.Value) []string {
	var out []string
	var walk func(prefix string, v starlark.Value, depth int)
	walk = func(prefix string, v starlark.Value, depth int) {
		if depth > 3 {
			return
		}
		for _, n := range FieldNames(v) {
			c, err := Attr(v, n)
			if err != nil || c == nil {
				continue
			}
			switch c.(type) {
			case starlark.Int, starlark.Float:
				out = append(out, prefix+n)
			case *starlark.Dict, starlark.HasAttrs:
				walk(prefix+n+".", c, depth+1)
			}
		}
	}
	walk("", v, 0)
	return out
}

// Number converts an int or float value to float64.
func Number(v starlark.Value) (float64, bool) {
	switch x := v.(type) {
	case starlark.Int:
		f, _ := starlark.AsFloat(x)
		return f, true
	case starlark.Float:
		return float64(x), true
	}
	return 0, false
}
