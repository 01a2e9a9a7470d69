// Package session is one run of netscript as every front end shares it: a
// script or a replay, the REPL, netperf's command line. It holds the run's
// state and policy and no Starlark: where its output goes (Stdout,
// Stderr), what it proves to servers (Token), where tests that name no
// host go (Target, else the embedded loopback server it starts on first
// use), the accounting of data-path threads, the live display (Progress)
// and the hooks that see every result (OnResult, OnInterim, OnFailed), the
// warnings already given, and the Script a record keeps.
//
// Run is the one call every front end makes to run a test: it starts the
// embedded server when the test names no host, hands a test whose client
// side a daemon runs (client=) to that daemon, and gives what the test
// made to the hooks. A front end words the engine's notes and errors its
// own way through RunOptions.Words; a script's builtins say `host=`,
// netperf's command line says -H.
//
// What comes next has its place here: a policy of what a run may read,
// write and reach is the session's, checked in Run before a test starts
// (every test passes there) and by the front ends before they open a
// file; a test's failure kept as a value rather than an error is what Run
// returns beside the partial result (client.TestError) and hands to
// OnFailed. A front end keeps state of its own for the length of a session
// (a Starlark runtime's defaults and syntax trees) with State.
package session
