package starlib

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/starlib/output"
)

// addOutput adds table(), csv(), kv(), env() and help().
func addOutput(d starlark.StringDict) {
	d["help"] = starlark.NewBuiltin("help", helpBuiltin)
	d["table"] = starlark.NewBuiltin("table", tableBuiltin)
	d["csv"] = starlark.NewBuiltin("csv", csvBuiltin)
	d["kv"] = starlark.NewBuiltin("kv", kvBuiltin)
	d["env"] = starlark.NewBuiltin("env", envBuiltin)
}

// MailWidth is the width table() and help() keep to, so their text pasted
// into a mail is not wrapped.
const MailWidth = output.MailWidth

// Number converts an int or float value to float64 (output.Number; the
// option parsers and statistics builtins use it).
func Number(v starlark.Value) (float64, bool) { return output.Number(v) }

// tableBuiltin: table(results, fields=None) returns netperf's human layout.
func tableBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	rows, fields, err := outputArgs(b, args, kwargs, output.TableDefaults)
	if err != nil {
		return nil, err
	}
	s, err := output.Table(rows, fields)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.String(s), nil
}

// csvBuiltin: csv(results, fields=None, header=True) returns netperf's -o
// layout.
func csvBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rv, fv starlark.Value = nil, starlark.None
	header := true
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "results", &rv, "fields?", &fv, "header?", &header); err != nil {
		return nil, err
	}
	rows, fields, err := outputRowsFields(b.Name(), rv, fv, output.RecordDefaults)
	if err != nil {
		return nil, err
	}
	s, err := output.CSVRows(rows, fields, header)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.String(s), nil
}

// kvBuiltin: kv(result, fields=None) returns netperf's -k layout.
func kvBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v, fv starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "result", &v, "fields?", &fv); err != nil {
		return nil, err
	}
	if !isOutputRow(v) {
		if n := starlark.Len(v); n >= 0 {
			return nil, fmt.Errorf("%s: takes one result, got a %s of %d; use csv() for several", b.Name(), v.Type(), n)
		}
		return nil, fmt.Errorf("%s: result must be a result (or a dict), got %s", b.Name(), v.Type())
	}
	fields, err := outputFields(b.Name(), fv)
	if err != nil {
		return nil, err
	}
	if fields == nil {
		fields = output.RecordDefaults([]starlark.Value{v})
	}
	s, err := output.KV(v, fields)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.String(s), nil
}

// outputArgs unpacks (results, fields=None) and fills in default fields.
func outputArgs(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, defaults func([]starlark.Value) []string) ([]starlark.Value, []string, error) {
	var rv, fv starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "results", &rv, "fields?", &fv); err != nil {
		return nil, nil, err
	}
	return outputRowsFields(b.Name(), rv, fv, defaults)
}

// outputRowsFields reads the results and fields arguments of builtin and
// fills in default fields.
func outputRowsFields(builtin string, rv, fv starlark.Value, defaults func([]starlark.Value) []string) ([]starlark.Value, []string, error) {
	rows, err := outputRows(builtin, rv)
	if err != nil {
		return nil, nil, err
	}
	fields, err := outputFields(builtin, fv)
	if err != nil {
		return nil, nil, err
	}
	if fields == nil {
		fields = defaults(rows)
	}
	return rows, fields, nil
}

// isOutputRow reports whether v can be one row: a result or other value with
// fields, or a dict (such as r.to_dict() or a decoded record).
func isOutputRow(v starlark.Value) bool {
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

// outputRows reads a list (or tuple) of results; one result is a list of one.
func outputRows(builtin string, v starlark.Value) ([]starlark.Value, error) {
	if isOutputRow(v) {
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
		if !isOutputRow(x) {
			return nil, fmt.Errorf("%s: results[%d] is a %s, not a result", builtin, i, x.Type())
		}
		rows = append(rows, x)
	}
	return rows, nil
}

// outputFields reads fields: None (the defaults), a list of names, or one
// string of comma-separated names as netperf's selectors are written.
func outputFields(builtin string, v starlark.Value) ([]string, error) {
	if v == starlark.None {
		return nil, nil
	}
	var names []string
	if s, ok := starlark.AsString(v); ok {
		for _, f := range strings.Split(s, ",") {
			names = append(names, strings.TrimSpace(f))
		}
	} else if it, ok := v.(starlark.Iterable); ok {
		iter := it.Iterate()
		defer iter.Done()
		var x starlark.Value
		for i := 0; iter.Next(&x); i++ {
			s, ok := starlark.AsString(x)
			if !ok {
				return nil, fmt.Errorf("%s: fields[%d] must be a field name such as \"latency.p99\", got %s", builtin, i, x.Type())
			}
			names = append(names, s)
		}
	} else {
		return nil, fmt.Errorf("%s: fields must be a list of field names such as [\"throughput\", \"latency.p99\"], got %s", builtin, v.Type())
	}
	for _, n := range names {
		if n == "" {
			return nil, fmt.Errorf("%s: fields has an empty name", builtin)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: fields is empty; leave it out for the defaults", builtin)
	}
	return names, nil
}
