// Package starlib exposes netscript's engine to Starlark: the workload
// builtins (tcp_rr, tcp_crr, udp_rr, ...), result values, and the modules
// scripts rely on. It converts values and arguments and holds no socket
// code and no statistics of its own.
//
// A script's builtins find their environment (the embedded loopback server,
// the output streams, the cancellation context) through the Starlark
// thread's locals; NewThread sets them up.
//
// What is not a builtin or a value lives in packages of its own below:
// output lays results out as text, record is the run record format,
// progress the terminal status line, embedded the embedded server process
// and script the running of a whole script.
package starlib
