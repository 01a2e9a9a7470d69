// Package starlib exposes netscript's engine to Starlark: the workload
// builtins (tcp_rr, tcp_crr, udp_rr, ...), result values, and the modules
// scripts rely on. It converts values and arguments and holds no socket
// code and no statistics of its own.
//
// A script's builtins find their environment (the embedded loopback server,
// the output streams, the cancellation context) through the Starlark
// thread's locals; NewThread sets them up.
package starlib
