package statistics

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/stats"
	"netscript/starlib/values"
)

// partialConfidence keeps the iterations of a confidence() loop that
// finished before err stopped it: from two on, a confidence value over
// them with partial = True; with one, that iteration's return value.
func partialConfidence(err error, c *stats.Confidence, rets []starlark.Value, metric string, failed failedRuns) error {
	if c == nil || c.Iterations < 1 || len(rets) < c.Iterations {
		return err
	}
	if c.Iterations == 1 || len(c.Intervals) == 0 {
		return &values.PartialError{Err: err, Value: rets[0], What: "the one finished iteration's result (one value has no interval)"}
	}
	v, verr := confidenceValue(c, rets[:c.Iterations], unitsOf(rets[0], metric), failed)
	if verr != nil {
		return err
	}
	v.Set("partial", starlark.True)
	whole := v.String() // a frozen value's text does not change
	v.SetString(func() string {
		return fmt.Sprintf("<partial %s", strings.TrimPrefix(whole, "<"))
	})
	return &values.PartialError{Err: err, Value: v, What: fmt.Sprintf("a partial confidence of the %d finished iterations", c.Iterations)}
}
