// Package statistics is the module of confidence(), compare() and stats:
// repeated runs until a mean is known to a width (netperf's -i and -I),
// Welch's interval of a difference over A B B A runs, and descriptive
// statistics of a list of numbers. The maths is engine/stats'; this module
// calls a script's functions, reads the metric from what they return and
// builds the values it returns.
package statistics

import (
	"fmt"
	"math"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/engine/stats"
	"netscript/starlib/module"
	"netscript/starlib/values"
)

// Module is confidence(), compare() and the stats module, with their help.
var Module = &module.Module{
	Name: "statistics",
	Members: starlark.StringDict{
		"confidence": starlark.NewBuiltin("confidence", confidenceBuiltin),
		"compare":    starlark.NewBuiltin("compare", compareBuiltin),
		"stats":      statsModule(),
	},
	Help: Doc,
	Index: map[string]string{
		"confidence": "runs until the mean is known to width % (netperf -i, -I)",
		"compare":    "whether b differs from a: Welch's interval over A B B A runs",
	},
	Keywords: map[string][]string{
		"confidence": {"fn", "level", "width", "min", "max", "metric"},
		"compare":    {"a", "b", "runs", "level", "metric"},
	},
}

// Doc holds the help text of the statistics builtins, keyed by the name a
// script uses ("confidence", "compare", "stats.ci", ...), for help() and
// the documentation; a member of stats is found by its bare name too
// (help("ci")).
var Doc = func() map[string]string {
	d := map[string]string{
		"confidence": confidenceDoc,
		"compare":    compareDoc,
		"stats":      statsDoc,
	}
	for k, v := range statsDocs {
		d[k] = v
		d[strings.TrimPrefix(k, "stats.")] = v
	}
	return d
}()

// number is an int or float argument, for UnpackArgs (a float64 target
// would reject an int).
type number float64

// Unpack accepts an int or a float.
func (n *number) Unpack(v starlark.Value) error {
	f, ok := values.Number(v)
	if !ok {
		return fmt.Errorf("want a number, got %s", v.Type())
	}
	*n = number(f)
	return nil
}

// checkLevel validates a confidence level in percent for builtin.
func checkLevel(builtin string, level float64) error {
	if !(level > 0 && level < 100) {
		return fmt.Errorf("%s: level must be between 0 and 100 percent (exclusive), got %v", builtin, level)
	}
	return nil
}

// checkNoArgs checks that v can be called with no arguments; param names
// the argument of builtin that holds it.
func checkNoArgs(builtin, param string, v starlark.Value) error {
	if _, ok := v.(starlark.Callable); !ok {
		return fmt.Errorf("%s: %s must be a function taking no arguments (such as lambda: tcp_rr(duration=10)), got %s", builtin, param, v.Type())
	}
	fn, ok := v.(*starlark.Function)
	if !ok {
		return nil // a builtin: whether it needs arguments shows when it is called
	}
	n := fn.NumParams()
	if fn.HasVarargs() {
		n--
	}
	if fn.HasKwargs() {
		n--
	}
	var required []string
	for i := 0; i < n; i++ {
		if fn.ParamDefault(i) == nil {
			name, _ := fn.Param(i)
			required = append(required, name)
		}
	}
	if len(required) > 0 {
		return fmt.Errorf("%s: %s must take no arguments, but %s requires %s; wrap it, e.g. lambda: %s(...)",
			builtin, param, fn.Name(), strings.Join(required, ", "), fn.Name())
	}
	return nil
}

// metricArg reads the metric argument: nil (not given) means "throughput"
// and explicit false.
func metricArg(builtin string, v starlark.Value) (metric string, explicit bool, err error) {
	if v == nil {
		return "throughput", false, nil
	}
	s, ok := starlark.AsString(v)
	if !ok {
		return "", false, fmt.Errorf("%s: metric must be a field name such as \"throughput\" or \"latency.p99\", got %s", builtin, v.Type())
	}
	if s == "" || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || strings.Contains(s, "..") {
		return "", false, fmt.Errorf("%s: metric must be a field name such as \"throughput\" or \"latency.p99\", got %q", builtin, s)
	}
	return s, true, nil
}

// measure is one call of a user's function: what it returned and the value
// of the metric in it.
type measure struct {
	ret   starlark.Value
	value float64
	// failed is the error of a failed test's result that fn returned
	// (keep_going=True, --keep-going): it has no value, and is counted.
	failed string
}

// call calls fn (who says which argument it is, for messages) and extracts
// metric from what it returned: a plain number is the value itself (only
// when metric was not given explicitly), anything with fields (a result, a
// struct, a dict) is searched for the dotted metric.
func call(th *starlark.Thread, who string, fn starlark.Value, metric string, explicit bool) (measure, error) {
	ret, err := starlark.Call(th, fn, nil, nil)
	if err != nil {
		return measure{}, err
	}
	if msg := failedResult(ret); msg != "" {
		return measure{ret: ret, failed: msg}, nil
	}
	v, err := metricValue(who, ret, metric, explicit)
	return measure{ret: ret, value: v}, err
}

// failedResult is the error of ret when it is a failed test's result
// (ok False), else "".
func failedResult(ret starlark.Value) string {
	if !hasFields(ret) {
		return ""
	}
	ok, err := values.Field(ret, "ok")
	if err != nil || ok != starlark.False {
		return ""
	}
	msg, err := values.Field(ret, "error")
	if err != nil {
		return "failed"
	}
	s, _ := starlark.AsString(msg)
	return s
}

// failedRuns counts the runs whose test failed, and keeps the first error.
type failedRuns struct {
	n     int
	first string
}

// add counts m if it failed, and reports whether it did.
func (f *failedRuns) add(m measure) bool {
	if m.failed == "" {
		return false
	}
	if f.n == 0 {
		f.first = m.failed
	}
	f.n++
	return true
}

// metricValue returns the value of metric in ret, what who returned.
func metricValue(who string, ret starlark.Value, metric string, explicit bool) (float64, error) {
	if x, ok := values.Number(ret); ok {
		if explicit {
			return 0, fmt.Errorf("metric %q was given but %s returned a plain number (%s), which has no fields; return a result, or leave metric out", metric, who, ret.String())
		}
		return finite(who+" returned", x)
	}
	if !hasFields(ret) {
		if ret == starlark.None {
			return 0, fmt.Errorf("%s returned None; it must return a number or a result (is a return statement missing?)", who)
		}
		return 0, fmt.Errorf("%s returned a %s; it must return a number or a result", who, ret.Type())
	}
	have := values.NumericFields(ret)
	f, err := values.Field(ret, metric)
	if err != nil {
		return 0, fmt.Errorf("metric %q: the %s %s returned has no such field; its numeric fields are %s", metric, ret.Type(), who, listOrNone(have))
	}
	x, ok := values.Number(f)
	switch {
	case ok:
		return finite(fmt.Sprintf("metric %q of what %s returned is", metric, who), x)
	case f == starlark.None:
		return 0, fmt.Errorf("metric %q is None in the %s %s returned: it was not measured (CPU figures need cpu_util=True)", metric, ret.Type(), who)
	}
	return 0, fmt.Errorf("metric %q is a %s, not a number; the numeric fields of the %s %s returned are %s", metric, f.Type(), ret.Type(), who, listOrNone(have))
}

// hasFields reports whether v is a value with named fields: a result or
// other record, a struct, a dict. Strings, lists and functions have
// attributes too, but only methods.
func hasFields(v starlark.Value) bool {
	switch v.(type) {
	case *starlark.Dict:
		return true
	case starlark.String, starlark.Bytes, *starlark.List, starlark.Tuple, *starlark.Set, starlark.Callable:
		return false
	case starlark.HasAttrs:
		return true
	}
	return false
}

// finite refuses NaN and infinities, which no interval can be built on.
func finite(what string, x float64) (float64, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%s %s; every measurement must be a finite number", what, starlark.Float(x))
	}
	return x, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// optionalNumber returns the numeric field name of v, if v has it and it is
// a number (CPU figures are None when not measured, and absent from older
// results).
func optionalNumber(v starlark.Value, name string) (float64, bool) {
	if !hasFields(v) {
		return 0, false
	}
	f, err := values.Field(v, name)
	if err != nil {
		return 0, false
	}
	x, ok := values.Number(f)
	if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

// mergedLatency returns the latency summary over every transaction of rets
// (merged histograms), or None when not all of them are results that carry
// a histogram.
func mergedLatency(rets []starlark.Value) (starlark.Value, error) {
	rs := make([]*result.Result, 0, len(rets))
	for _, v := range rets {
		rec, ok := v.(*values.Record)
		if !ok {
			return starlark.None, nil
		}
		r, ok := rec.Value().(*result.Result)
		if !ok {
			return starlark.None, nil
		}
		rs = append(rs, r)
	}
	h, err := result.MergeHist(rs)
	if err != nil || h == nil {
		return starlark.None, err
	}
	return values.NewLatency(result.LatencyOf(h), h), nil
}

// unitsOf returns the units string of a result-like value when metric is
// its throughput, else "".
func unitsOf(v starlark.Value, metric string) string {
	if metric != "throughput" {
		return ""
	}
	if _, ok := v.(starlark.HasAttrs); !ok {
		return ""
	}
	u, err := values.Field(v, "units")
	if err != nil {
		return ""
	}
	s, _ := starlark.AsString(u)
	return s
}

// floatList returns a frozen list of floats.
func floatList(xs []float64) *starlark.List {
	elems := make([]starlark.Value, len(xs))
	for i, x := range xs {
		elems[i] = starlark.Float(x)
	}
	l := starlark.NewList(elems)
	l.Freeze()
	return l
}

// frozenList returns a frozen list of vs.
func frozenList(vs []starlark.Value) *starlark.List {
	l := starlark.NewList(append([]starlark.Value(nil), vs...))
	l.Freeze()
	return l
}

// sampleStddev is the sample standard deviation of xs, 0 for fewer than
// two values (only reached for a one-element list, which callers avoid).
func sampleStddev(xs []float64) float64 {
	s, err := stats.Stddev(xs)
	if err != nil {
		return 0
	}
	return s
}

// num formats a figure for a summary line: two decimals for ordinary
// magnitudes, significant digits for small ones.
func num(x float64) string {
	if a := math.Abs(x); a >= 1 || a == 0 {
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

// pct formats a percentage with up to three decimals, netperf style.
func pct(x float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", x), "0"), ".") + "%"
}
