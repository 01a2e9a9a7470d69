package starlib

import (
	"go.starlark.net/starlark"

	"netscript/starlib/concurrency"
	"netscript/starlib/format"
	"netscript/starlib/module"
	"netscript/starlib/output"
	"netscript/starlib/plot"
	"netscript/starlib/statistics"
	"netscript/starlib/std"
	"netscript/starlib/values"
	"netscript/starlib/workloads"
)

// Predeclared returns the names every script, -c snippet and REPL session
// starts with. Each area adds its own builtins from its own file.
func Predeclared() starlark.StringDict {
	d := starlark.StringDict{}
	addOutput(d)
	for _, m := range modules {
		for name, v := range m.Members {
			d[name] = v
		}
	}
	return d
}

// modules lists the modules, each a package of its own.
var modules = []*module.Module{workloads.Module, values.Module, format.Module, statistics.Module, output.Module, plot.Module, concurrency.Module, std.Module}
