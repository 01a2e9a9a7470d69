package starlib

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"netscript/starlib/thread"
)

// FileOptions returns the one Starlark dialect of netscript: files, -c
// snippets and the REPL all use it, so a script behaves the same everywhere.
func FileOptions() *syntax.FileOptions {
	return &syntax.FileOptions{
		Set:             true,
		While:           true,
		TopLevelControl: true,
		GlobalReassign:  true,
		Recursion:       true,
	}
}

// ExecFile runs a Starlark file (or a -c snippet) on th in netscript's
// dialect, with the predeclared names pre, and returns its globals, frozen
// as Starlark freezes a module's globals when it ends (what
// starlark.ExecFileOptions does). It keeps the file's syntax in th's
// session, so that parallel() freezes only the globals its branches
// use; see thread.KeepSyntax.
func ExecFile(th *starlark.Thread, filename string, src any, pre starlark.StringDict) (starlark.StringDict, error) {
	f, prog, err := starlark.SourceProgramOptions(FileOptions(), filename, src, pre.Has)
	if err != nil {
		return nil, err
	}
	thread.KeepSyntax(th, f)
	g, err := prog.Init(th, pre)
	g.Freeze()
	return g, err
}
