package plot

import (
	"fmt"

	"go.starlark.net/starlark"

	"netscript/starlib/values"
)

// timeseriesLines is what one result (rows[i]) draws in a timeseries: the
// result itself, or with perFlow each of its flows, which keep their own
// interim samples (result.flows[i].interim), with the names of the lines
// (alone: the result is the only one drawn, and its flows' lines need no
// more than "flow 0", "flow 1", ...).
// A result whose flows keep no samples of their own is an error with
// perFlow (a dict without them, or a record or a daemon of a release
// before them) when the result itself has some: drawing nothing would
// look like a test that moved nothing.
func timeseriesLines(r starlark.Value, i int, perFlow, alone bool) ([]starlark.Value, []string, error) {
	if !perFlow {
		return []starlark.Value{r}, []string{rowName(r, i)}, nil
	}
	noSamples := fmt.Errorf("per_flow=True: the flows of results[%d] (%s) keep no interim samples", i, testName(r))
	fl, err := plotField(r, "flows")
	if err != nil {
		return nil, nil, fmt.Errorf("results[%d]: %w", i, err)
	}
	l, _ := fl.(*starlark.List)
	var lines []starlark.Value
	var names []string
	samples := 0
	for k := 0; l != nil && k < l.Len(); k++ {
		f := l.Index(k)
		iv, err := values.Field(f, "interim")
		if err != nil {
			return nil, nil, noSamples
		}
		if s, ok := iv.(*starlark.List); ok {
			samples += s.Len()
		}
		lines = append(lines, f)
		names = append(names, flowName(r, i, f, k, alone))
	}
	if samples == 0 {
		if own, err := values.Field(r, "interim"); err == nil {
			if s, ok := own.(*starlark.List); ok && s.Len() > 0 {
				return nil, nil, noSamples
			}
		}
	}
	return lines, names, nil
}

// flowName names the line of flow f, the k-th of rows[i]'s flows: by its
// index, after the result's name unless the result is drawn alone (a
// legend of "TCP_STREAM #1 flow 0", "TCP_STREAM #1 flow 1", ... takes a
// third of the picture's width to say one thing many times).
func flowName(r starlark.Value, i int, f starlark.Value, k int, alone bool) string {
	if v, err := values.Field(f, "index"); err == nil {
		if n, ok := values.Number(v); ok {
			k = int(n)
		}
	}
	if alone {
		return fmt.Sprintf("flow %d", k)
	}
	return fmt.Sprintf("%s flow %d", rowName(r, i), k)
}
