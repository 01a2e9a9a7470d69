// Package module says what one Starlark module of netscript gives the
// registration table (package starlib): the predeclared names it adds, its
// documentation by the names help() takes, the line help() lists each of
// its names with, and the keywords its builtins take, for the REPL's
// completion. Each module is a package under starlib/ that exports its
// Module (after go.starlark.net's lib/time and lib/math); the table lists
// them once, and Predeclared, help() and completion read that list, so a
// new builtin touches its module's package and nothing else.
package module

import "go.starlark.net/starlark"

// Module is one module's part of the predeclared names and of help().
type Module struct {
	// Name is the package's name ("workloads"), for the table's errors.
	Name string
	// Members are the predeclared names the module adds: builtins, and
	// namespaces such as stats.
	Members starlark.StringDict
	// Help holds the help() text of each name help() documents, by the
	// name it takes ("tcp_rr", "stats.ci", "result.tcp"): a signature
	// line, a blank line, then sentences, no line wider than
	// module.MailWidth.
	Help map[string]string
	// Index holds the line help() gives a predeclared name in its list,
	// where the first sentence of its Help is not that line; a namespace
	// without one lists its members.
	Index map[string]string
	// Keywords lists the keyword arguments of each builtin, for the
	// REPL's completion.
	Keywords map[string][]string
	// KeywordOnly names the builtins that take keyword arguments only, as
	// the workloads do.
	KeywordOnly map[string]bool
}
