// Package latency is the module of latency under load as one call: rrul(),
// flent's Realtime Response Under Load (streams each way and
// request/response probes on one clock, before the load and under it), and
// responsiveness(), the IETF draft "Responsiveness under Working
// Conditions" (draft-ietf-ippm-responsiveness-09) over raw TCP, with its
// RPM. Both run the workloads of the registry (tcp_stream, tcp_maerts,
// tcp_rr, udp_rr, tcp_crr) through the session, as their builtins do, on
// a start barrier of their own.
package latency

import (
	"go.starlark.net/starlark"

	"netscript/starlib/module"
)

// Module is rrul() and responsiveness(), with their help.
var Module = &module.Module{
	Name: "latency",
	Members: starlark.StringDict{
		"rrul":           starlark.NewBuiltin("rrul", rrulBuiltin),
		"responsiveness": starlark.NewBuiltin("responsiveness", responsivenessBuiltin),
	},
	Help: doc,
	Index: map[string]string{
		"rrul":           "flent's RRUL: streams each way beside latency probes",
		"responsiveness": "round trips per minute under load (IETF draft)",
	},
	Keywords: map[string][]string{
		"rrul":           {"host", "port", "preset", "streams", "direction", "dscp", "duration", "idle", "interval"},
		"responsiveness": {"host", "port", "direction", "interval", "max_duration", "max_connections"},
	},
}
