// Package output lays results out as text, the way netperf prints them:
// Table is the human layout in fixed-width columns that fit a mail, CSV is
// netperf's -o and KV its -k. Rows are Starlark values with fields (results
// and other records) or dicts (r.to_dict(), a record's results); fields are
// dotted paths into them (Field). Left without fields, each kind of test
// gets netperf's default set (TableDefaults, RecordDefaults).
//
// It is also the module of the table(), csv() and kv() builtins (Module),
// and reads the arguments of builtins that take results (Rows). It sits
// below the other modules and values: a value prints its figures as
// table() does (FloatText), and the statistics and plot modules read
// fields by the same paths. The record format (netscript show and replay)
// and the REPL's completion use it too.
package output
