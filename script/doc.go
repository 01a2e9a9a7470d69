// Package script runs netscript programs: a file, a -c snippet or stdin
// (a session.Script; ReadScript), with its NAME=VALUE arguments
// (ParseArgs) as the dict args, over starlib's predeclared names (Globals,
// Exec). load()
// resolves a module relative to the file that loads it, runs it once and
// reports a cycle with the chain of files in it (LoadFunc). FormatError
// renders a script's error for a person, with the offending line (Source
// gives it the text of each file).
//
// cmd/netscript runs files and snippets through it, and the REPL uses its
// globals, loader and error format.
package script
