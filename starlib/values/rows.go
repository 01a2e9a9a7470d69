package values

import (
	"fmt"

	"go.starlark.net/starlark"
)

// IsRow reports whether v can be one row: a result or other value with
// fields, or a dict (such as r.to_dict() or a decoded record).
func IsRow(v starlark.Value) bool {
	switch v.(type) {
	case *starlark.Dict:
		return true
	case starlark.Iterable: // lists and tuples have methods, but are not rows
		return false
	case starlark.HasAttrs:
		return true
	}
	return false
}

// Rows reads the results argument of builtin: a list (or tuple) of
// results, or one result, a list of one.
func Rows(builtin string, v starlark.Value) ([]starlark.Value, error) {
	if IsRow(v) {
		return []starlark.Value{v}, nil
	}
	it, ok := v.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("%s: results must be a list of results, got %s", builtin, v.Type())
	}
	var rows []starlark.Value
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for i := 0; iter.Next(&x); i++ {
		if !IsRow(x) {
			return nil, fmt.Errorf("%s: results[%d] is a %s, not a result", builtin, i, x.Type())
		}
		rows = append(rows, x)
	}
	return rows, nil
}
