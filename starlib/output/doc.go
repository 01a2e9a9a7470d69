// Package output lays results out as text, the way netperf prints them:
// Table is the human layout in fixed-width columns that fit a mail, CSV is
// netperf's -o and KV its -k. Rows are Starlark values with fields (results
// and other records) or dicts (r.to_dict(), a record's results); fields are
// dotted paths into them (values.Field). Left without fields, each kind
// of test gets netperf's default set (TableDefaults, RecordDefaults).
//
// It is also the module of the table(), csv() and kv() builtins (Module).
// The record format (netscript show and replay) and the HTML report lay
// results out through it too.
package output
