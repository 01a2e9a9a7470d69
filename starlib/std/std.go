// Package std is what every script has beside netscript's own modules,
// without loading anything: Starlark's json, math and time modules, and
// env(), the description of this machine and this netscript that records
// keep.
package std

import (
	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/lib/time"
	"go.starlark.net/starlark"

	"netscript/starlib/module"
)

// Module is json, math, time and env(), with the help netscript adds to
// Starlark's own modules (json's members).
var Module = &module.Module{
	Name: "std",
	Members: starlark.StringDict{
		"json": json.Module,
		"math": math.Module,
		"time": time.Module,
		"env":  starlark.NewBuiltin("env", envBuiltin),
	},
	Help: doc,
	Index: map[string]string{
		"env": "this machine: kernel, CPU, the sysctls that move results",
	},
}

// doc documents env() and the members of the json module most scripts
// use.
var doc = map[string]string{
	"env": `env() -> env

Describes this machine and this netscript, as records keep it: hostname,
os, arch, kernel, kernel_version, cpu_model, cpus (online), usable_cpus
(affinity), cpu_governor, sysctls (a dict of the settings that move results,
keyed by full name: net.ipv4.tcp_congestion_control, net.ipv4.tcp_fastopen,
net.ipv4.tcp_rmem, net.core.rmem_max, net.ipv4.tcp_tw_reuse,
net.ipv4.ip_local_port_range, ...), netscript, commit, go.
  print(env())
  print(env().sysctls["net.ipv4.tcp_congestion_control"])
  print(json.encode(env().to_dict()))`,
	"json.encode": `json.encode(x) -> str

Encodes x (dicts with string keys, lists, tuples, strings, numbers, bools,
None) as JSON. A result is not plain data: encode r.to_dict().
  print(json.encode(tcp_rr(duration=2).to_dict()))`,
	"json.decode": `json.decode(s) -> value

Decodes JSON text into dicts, lists, strings, numbers, bools and None.`,
	"json.indent": `json.indent(s, prefix="", indent="\t") -> str

Re-indents JSON text for people.`,
	"json.encode_indent": `json.encode_indent(x, prefix="", indent="\t") -> str

Encodes x as json.encode does, indented for people.`,
}
