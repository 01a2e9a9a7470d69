package workloads

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/spec"
	"netscript/starlib/module"
)

// Module is one builtin per workload of the registry (spec.Workloads) and
// defaults(), with their help: each workload's from the option table and
// its descriptor, so the text never disagrees with what it takes.
var Module = newModule()

// newModule builds Module from the registry.
func newModule() *module.Module {
	m := &module.Module{
		Name:        "workloads",
		Members:     starlark.StringDict{"defaults": starlark.NewBuiltin("defaults", defaultsBuiltin)},
		Help:        map[string]string{"defaults": defaultsDoc},
		Index:       map[string]string{"defaults": "default options for the workload calls that follow"},
		Keywords:    map[string][]string{"defaults": defaultsKeywords()},
		KeywordOnly: map[string]bool{},
	}
	for _, w := range spec.Workloads() {
		m.Members[w.Name] = newWorkloadBuiltin(w)
		m.Help[w.Name] = workloadHelp(w)
		m.Index[w.Name] = fmt.Sprintf("%s test: %s", w, w.Short)
		var names []string
		for _, o := range optionsFor(w) {
			names = append(names, o.name)
		}
		m.Keywords[w.Name] = names
		m.KeywordOnly[w.Name] = true
	}
	return m
}

// workloadHelp documents a workload builtin from the option table, so the
// text never disagrees with what the builtin accepts.
func workloadHelp(w *spec.Workload) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(option=value, ...) -> result\n\n", w.Name)
	intro := fmt.Sprintf("Runs one %s test (netperf -t %s): each transaction is %s. Every option is a keyword and may be left out.", w, w, w.Unit)
	b.WriteString(strings.Join(module.Wrap(intro, module.MailWidth-2), "\n"))
	b.WriteString("\n\nOptions:\n")
	for _, o := range optionsFor(w) {
		fmt.Fprintf(&b, "  %s = %s\n", o.name, o.def)
		for _, line := range module.Wrap(o.doc, module.MailWidth-8) {
			fmt.Fprintf(&b, "      %s\n", line)
		}
	}
	fmt.Fprintf(&b, "\nhelp(result) lists the fields of what it returns.\n  r = %s(duration=2)\n  print(format(r.throughput, \",.2f\"), r.units)", w.Name)
	return b.String()
}
