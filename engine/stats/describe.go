// Package stats holds the statistics behind netscript's results: descriptive
// figures (mean, standard deviation, percentiles), Student-t confidence
// intervals, netperf's confidence stopping rule (-i max,min -I level,width) as
// a reusable driver, and a two-sample comparison for A/B runs.
//
// The package is pure Go with no knowledge of Starlark or sockets. Every
// function leaves the caller's slices untouched, and every input a user can
// get wrong (an empty list, a single value where a spread is needed, NaN or
// Inf in the data, a level outside (0, 100)) is reported as an error that says
// what was being computed and why it failed; no function returns NaN or
// panics on such input.
package stats

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// checkFinite reports the first NaN or infinite value in xs; op names the
// computation for the message.
func checkFinite(op string, xs []float64) error {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: value at index %d is %v; every measurement must be a finite number", op, i, x)
		}
	}
	return nil
}

// finiteResult turns an overflowed result into an error instead of letting
// an infinity escape to the caller.
func finiteResult(op string, v float64) (float64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s overflows a float64 (the values are too large in magnitude)", op)
	}
	return v, nil
}

// Mean returns the arithmetic mean of xs, the figure reported for a series
// of iterations or samples.
func Mean(xs []float64) (float64, error) {
	if len(xs) == 0 {
		return 0, fmt.Errorf("mean of an empty list")
	}
	if err := checkFinite("mean", xs); err != nil {
		return 0, err
	}
	return finiteResult("mean", stat.Mean(xs, nil))
}

// Stddev returns the sample standard deviation of xs (divisor n−1), the
// spread used for confidence intervals. It needs at least two values.
func Stddev(xs []float64) (float64, error) {
	switch len(xs) {
	case 0:
		return 0, fmt.Errorf("stddev of an empty list")
	case 1:
		return 0, fmt.Errorf("stddev needs at least 2 values, got 1")
	}
	if err := checkFinite("stddev", xs); err != nil {
		return 0, err
	}
	return finiteResult("stddev", stat.StdDev(xs, nil))
}

// Median returns the middle value of xs (the mean of the two middle values
// when len(xs) is even); it is Percentile(xs, 50).
func Median(xs []float64) (float64, error) {
	if len(xs) == 0 {
		return 0, fmt.Errorf("median of an empty list")
	}
	if err := checkFinite("median", xs); err != nil {
		return 0, err
	}
	return percentileOf(sortedCopy(xs), 50), nil
}

// Percentile returns the q-th percentile of xs, q in [0, 100], for latency
// and throughput summaries.
//
// The definition is the common linear interpolation one, used by numpy's
// default (method "linear"), Excel's PERCENTILE.INC and R's type 7: sort the
// values into x[0] ≤ … ≤ x[n−1], take the rank r = q/100·(n−1), and return
// x[⌊r⌋] + (r−⌊r⌋)·(x[⌊r⌋+1] − x[⌊r⌋]). Percentile 0 is the minimum, 100 the
// maximum and 50 the median. (gonum's stat.Quantile with LinInterp uses a
// different rank, q·n, and is deliberately not used.)
func Percentile(xs []float64, q float64) (float64, error) {
	if !(q >= 0 && q <= 100) {
		return 0, fmt.Errorf("percentile: q must be in [0, 100], got %v", q)
	}
	if len(xs) == 0 {
		return 0, fmt.Errorf("percentile of an empty list")
	}
	if err := checkFinite("percentile", xs); err != nil {
		return 0, err
	}
	return percentileOf(sortedCopy(xs), q), nil
}

// sortedCopy returns a sorted copy of xs, leaving xs as it was.
func sortedCopy(xs []float64) []float64 {
	s := make([]float64, len(xs))
	copy(s, xs)
	sort.Float64s(s)
	return s
}

// percentileOf applies the linear-interpolation definition documented on
// Percentile to sorted, non-empty, finite data and q in [0, 100].
func percentileOf(sorted []float64, q float64) float64 {
	n := len(sorted)
	rank := q / 100 * float64(n-1)
	lo := int(math.Floor(rank))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return lerp(sorted[lo], sorted[lo+1], rank-float64(lo))
}

// lerp interpolates between a ≤ b at fraction f in [0, 1) the way numpy
// does: from the nearer end, so that equal neighbours give exactly their
// value and the result never leaves [a, b].
func lerp(a, b, f float64) float64 {
	if f == 0 || a == b {
		return a
	}
	d := b - a
	if math.IsInf(d, 0) {
		// Neighbours of opposite sign near the float64 limits: the
		// difference overflows but the weighted sum does not.
		return (1-f)*a + f*b
	}
	if f < 0.5 {
		return a + f*d
	}
	return b - (1-f)*d
}
