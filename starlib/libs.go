package starlib

import (
	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// addLibs adds the standard modules scripts may use without loading them.
func addLibs(d starlark.StringDict) {
	d["json"] = json.Module
	d["math"] = math.Module
	d["time"] = time.Module
}

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
