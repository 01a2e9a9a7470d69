// Package starlib is the registration table of netscript's Starlark
// modules: the one list of them (each a package under starlib/ that
// exports its Module: workloads, statistics, output, plot, format,
// concurrency, std, values), from which Predeclared builds the names a
// script starts with and help() and the REPL's completion read their
// documentation and keywords; and netscript's one dialect (FileOptions,
// ExecFile), the same for files, -c snippets and the REPL.
//
// It holds no builtin and reaches no engine: the builtins are their
// modules', and they reach the run they are part of (package session)
// through starlib/thread. What the modules share is below them: values
// (results and statistics as Starlark values, their fields and numbers),
// thread and module.
package starlib
