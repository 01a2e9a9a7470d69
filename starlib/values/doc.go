// Package values holds the Starlark values of netscript's results and
// statistics, read-only views that every module and front end shares: a
// result and the records inside it (Record, NewResult, with Summary, its
// one line), r.latency with its histogram (Latency), the values
// confidence(), compare() and stats.ci() return (Fields), what a builtin
// cut short kept (PartialError), and their plain and JSON forms (Plain,
// ResultJSON). Every module reads their fields by one dotted path
// (Field, FieldNames, NumericFields), their numbers one way (Number) and
// a list of them from a builtin's argument (Rows); a figure prints as
// table() prints it (FloatText). Module documents them for help(): it
// adds no names.
package values

import "netscript/starlib/module"

// Module documents the values scripts meet, by the names help() takes
// ("latency", "result.tcp", "flow", ...); it adds no predeclared names.
var Module = &module.Module{Name: "values", Help: docs()}

// docs gathers the help texts of the
func docs() map[string]string {
	d := map[string]string{}
	for _, m := range []map[string]string{latencyDoc, tcpDoc, fieldDoc, flowDoc} {
		for k, v := range m {
			d[k] = v
		}
	}
	return d
}
