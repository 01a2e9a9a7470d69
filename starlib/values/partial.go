package values

import "go.starlark.net/starlark"

// PartialError is the error of a builtin that stopped before it ended (on
// Ctrl-C, or a test that failed) and kept what it had finished: Value,
// such as a confidence over the iterations that ran. The REPL binds Value
// to _. The message is Err's.
type PartialError struct {
	Err   error
	Value starlark.Value // what was finished, marked partial
	What  string         // what Value is, for the user: "a partial confidence of 3 iterations"
}

// Error is the cause's message.
func (e *PartialError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *PartialError) Unwrap() error { return e.Err }
