package starlib

import (
	"go.starlark.net/starlark"

	"netscript/engine/spec"
)

// Predeclared returns the names every script, -c snippet and REPL session
// starts with. Each area adds its own builtins from its own file.
func Predeclared() starlark.StringDict {
	d := starlark.StringDict{}
	addWorkloads(d)
	addStatistics(d)
	addOutput(d)
	addLibs(d)
	addConcurrency(d)
	addPlots(d)
	addDefaults(d)
	addNumbers(d)
	return d
}

// addWorkloads adds one builtin per workload.
func addWorkloads(d starlark.StringDict) {
	for _, w := range spec.Workloads() {
		d[w.Name] = newWorkloadBuiltin(w)
	}
}
