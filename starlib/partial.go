package starlib

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/stats"
)

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

// partialConfidence keeps the iterations of a confidence() loop that
// finished before err stopped it: from two on, a confidence value over
// them with partial = True; with one, that iteration's return value.
func partialConfidence(err error, c *stats.Confidence, rets []starlark.Value, metric string) error {
	if c == nil || c.Iterations < 1 || len(rets) < c.Iterations {
		return err
	}
	if c.Iterations == 1 || len(c.Intervals) == 0 {
		return &PartialError{Err: err, Value: rets[0], What: "the one finished iteration's result (one value has no interval)"}
	}
	v, verr := confidenceValue(c, rets[:c.Iterations], unitsOf(rets[0], metric))
	if verr != nil {
		return err
	}
	v.set("partial", starlark.True)
	whole := v.str
	v.str = func() string {
		return fmt.Sprintf("<partial %s", strings.TrimPrefix(whole(), "<"))
	}
	return &PartialError{Err: err, Value: v, What: fmt.Sprintf("a partial confidence of the %d finished iterations", c.Iterations)}
}
