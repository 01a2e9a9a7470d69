package starlib

import (
	"go.starlark.net/starlark"

	"netscript/starlib/checks"
	"netscript/starlib/concurrency"
	"netscript/starlib/fleet"
	"netscript/starlib/format"
	"netscript/starlib/help"
	"netscript/starlib/latency"
	"netscript/starlib/module"
	"netscript/starlib/output"
	"netscript/starlib/plot"
	"netscript/starlib/statistics"
	"netscript/starlib/std"
	"netscript/starlib/values"
	"netscript/starlib/workloads"
)

// modules are netscript's Starlark modules, each a package of its own: the
// one list the predeclared names, help() and the REPL's completion read.
// A new module is a package under starlib/ and a line here.
var modules = []*module.Module{
	workloads.Module,   // tcp_rr, ..., defaults()
	statistics.Module,  // confidence(), compare(), stats
	output.Module,      // table(), csv(), kv()
	plot.Module,        // plot(), latency_plot(), timeseries(), bars(), chart()
	format.Module,      // format(), round()
	concurrency.Module, // parallel(), aggregate()
	latency.Module,     // rrul(), responsiveness()
	std.Module,         // json, math, time, env()
	fleet.Module,       // fleet: agents found in Kubernetes or DNS, mesh plans
	checks.Module,      // check()
	values.Module,      // no names: the help of results and their parts
}

// docs is the documentation of the modules, and help() over them.
var docs = help.New(modules)

// Modules lists every module, help() last.
func Modules() []*module.Module {
	return append(append([]*module.Module(nil), modules...), docs.Module())
}

// Predeclared returns the names every script, -c snippet and REPL session
// starts with: every module's.
func Predeclared() starlark.StringDict { return docs.Predeclared() }

// Help returns what help(x) prints.
func Help(x starlark.Value) (string, error) { return docs.Help(x) }

// Keywords lists the keyword arguments a builtin takes, for completion:
// the options of a workload, the parameters of the others.
func Keywords(builtin string) []string { return docs.Keywords(builtin) }

// KeywordOnly reports whether builtin takes keyword arguments only, as the
// workloads do.
func KeywordOnly(builtin string) bool { return docs.KeywordOnly(builtin) }
