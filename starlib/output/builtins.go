package output

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/starlib/module"
	"netscript/starlib/values"
)

// Module is table(), csv() and kv(), with their help.
var Module = &module.Module{
	Name: "output",
	Members: starlark.StringDict{
		"table": starlark.NewBuiltin("table", tableBuiltin),
		"csv":   starlark.NewBuiltin("csv", csvBuiltin),
		"kv":    starlark.NewBuiltin("kv", kvBuiltin),
	},
	Help: doc,
	Index: map[string]string{
		"table": "results as a fixed-width table (netperf's human output)",
		"csv":   "results as CSV lines (netperf -- -o)",
		"kv":    "one result as NAME=value lines (netperf -- -k)",
	},
	Keywords: map[string][]string{
		"table": {"results", "fields"},
		"csv":   {"results", "fields", "header"},
		"kv":    {"result", "fields"},
	},
}

// tableBuiltin: table(results, fields=None) returns netperf's human layout.
func tableBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	rows, fields, err := outputArgs(b, args, kwargs, TableDefaults)
	if err != nil {
		return nil, err
	}
	s, err := Table(rows, fields)
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
	rows, fields, err := outputRowsFields(b.Name(), rv, fv, RecordDefaults)
	if err != nil {
		return nil, err
	}
	s, err := CSVRows(rows, fields, header)
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
	if !values.IsRow(v) {
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
		fields = RecordDefaults([]starlark.Value{v})
	}
	s, err := KV(v, fields)
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
	rows, err := values.Rows(builtin, rv)
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

// doc documents table(), csv() and kv() for help().
var doc = map[string]string{
	"table": `table(results, fields=None) -> str

Lays results out as netperf's human output does: a header of up to three
lines (name, more of the name, units), fixed-width columns, numbers
right-aligned, at most 80 columns wide so it can be pasted into a mail
(columns that do not fit go into a second block below).

  results  a list of results (or of dicts such as r.to_dict()); one result
           is a table of one row
  fields   field names, dotted for nested ones ("latency.p99",
           "remote.transactions"), as a list or one comma-separated string;
           None picks a set for the kind of test (for TCP_RR: test, request,
           response, burst, elapsed, throughput, latency.p50, latency.p99,
           then brand and errors when any result has them)

An unknown field is an error that lists the valid ones.
  print(table([tcp_rr(request=s, response=s) for s in [1, 64, 1024]]))`,
	"csv": `csv(results, fields=None, header=True) -> str

Lays results out as netperf -- -o does: one header line of field names,
then one line per result; header=False leaves the header out, as
netperf's -P 0 does, for shell loops. Fields as for table(); the default
set adds units, brand, transactions and the latency distribution. Fields
may also be netperf's selector names, in any case (result_brand, throughput,
p99_latency, mean_latency, transaction_rate, rt_latency, elapsed_time,
lss_size, ...): those head their column with netperf's selector name
(P99_LATENCY), with netscript's figure.
  print(csv(results, ["brand", "throughput", "latency.p99"]))
  print(csv(r, "result_brand,throughput,p99_latency", header=False))`,
	"kv": `kv(result, fields=None) -> str

Lays one result out as netperf -- -k does: NAME=value lines, the name in
capitals with dots as underscores (latency.p99 is LATENCY_P99; netperf's
selector p99_latency stays P99_LATENCY), strings in double quotes so a
shell can source the text. Fields as for csv().
  print(kv(tcp_rr(duration=2), ["throughput", "latency.p99"]))`,
}
