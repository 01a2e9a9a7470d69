package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// The stopping rules RunConfidence knows (ConfidenceSpec.Method).
const (
	// MethodNetperf is netperf's -i/-I rule: run until the interval is
	// narrow enough. It stops when the sample happens to look tight, so the
	// interval it then gives covers the true mean less often than its level
	// (by simulation with 1 % noise, level 95, width 2, min 3, max 30:
	// about 92 %); it is the default so that figures stay comparable with
	// netperf's.
	MethodNetperf = "netperf"
	// MethodTwoStage is Stein's two-stage procedure: a first stage of Min
	// iterations estimates the variance, the number of iterations needed
	// for Width at Level follows from it, and the interval over all of them
	// uses the first stage's variance and its t quantile (Min − 1 degrees
	// of freedom). Its coverage is exact for normal data, whatever the
	// number of iterations it ends up running, capped at Max or not.
	MethodTwoStage = "two_stage"
)

// checkMethod validates ConfidenceSpec.Method.
func checkMethod(m string) error {
	switch m {
	case "", MethodNetperf, MethodTwoStage:
		return nil
	}
	return fmt.Errorf("confidence: method must be %q or %q, got %q", MethodNetperf, MethodTwoStage, m)
}

// SteinRuns is the number of iterations Stein's procedure calls for: the
// smallest n ≥ n0 with t·s0/√n ≤ half, where s0 is the first stage's
// standard deviation, t its critical value and half the target half-width
// (in the values' units). It is at most limit+1, so callers can tell "more
// than limit" without an overflow; half ≤ 0 with s0 > 0 asks for limit+1.
func SteinRuns(t, s0, half float64, n0, limit int) int {
	if s0 <= 0 {
		return n0
	}
	if !(half > 0) {
		return limit + 1
	}
	need := math.Ceil(t * t * s0 * s0 / (half * half))
	if !(need <= float64(limit)) { // also NaN
		return max(limit+1, n0)
	}
	return max(int(need), n0)
}

// runTwoStage is RunConfidence with MethodTwoStage. The target half-width
// of each metric is Width percent of its first stage's mean, halved (Width
// is a full width); Planned is the largest number of iterations any
// tracked metric needs, and the procedure runs min(Planned, Max) in all.
// Met says whether Planned ≤ Max: the plan was carried out, so the width
// is the planned one (in percent of the first stage's mean: the final mean
// can make it a little wider or narrower in percent of itself).
func (p *Procedure) runTwoStage(iterate func(i int) ([]float64, error)) (*Confidence, error) {
	spec := p.spec
	c := &Confidence{Spec: spec, Method: MethodTwoStage}
	t := p.tq(spec.Min - 1)
	var s0 []float64
	n := spec.Min
	for i := 1; i <= n; i++ {
		vals, err := iterate(i)
		if err != nil {
			return c, fmt.Errorf("confidence: iteration %d: %w", i, err)
		}
		if err := c.record(i, vals); err != nil {
			return c, err
		}
		if i == spec.Min {
			if s0, err = c.plan(t); err != nil {
				return c, err
			}
			n = min(c.Planned, spec.Max)
		}
	}
	if err := c.twoStageIntervals(t, s0); err != nil {
		return c, err
	}
	c.Met = c.Planned <= spec.Max
	c.History = []float64{c.Widths[0]}
	return c, nil
}

// plan sets Planned from the first stage (all values so far) and returns
// each metric's first-stage standard deviation.
func (c *Confidence) plan(t float64) ([]float64, error) {
	n0 := c.Iterations
	s0 := make([]float64, len(c.Values))
	c.Planned = n0
	for m, xs := range c.Values {
		if m > 0 && allZero(xs) {
			continue // not measured: never blocks
		}
		mean, sd := stat.MeanStdDev(xs, nil)
		if math.IsInf(mean, 0) || math.IsNaN(mean) || math.IsInf(sd, 0) || math.IsNaN(sd) {
			return nil, fmt.Errorf("confidence: %s: the values are too large in magnitude for a float64 mean and spread", c.Spec.name(m))
		}
		if mean == 0 {
			return nil, fmt.Errorf("confidence: mean of %s is 0; a width in percent is undefined", c.Spec.name(m))
		}
		s0[m] = sd
		half := c.Spec.Width / 200 * math.Abs(mean)
		c.Planned = max(c.Planned, SteinRuns(t, sd, half, n0, MaxIterationsLimit))
	}
	return s0, nil
}

// twoStageIntervals sets each metric's interval over all its values with
// the first stage's standard deviation s0 and critical value t.
func (c *Confidence) twoStageIntervals(t float64, s0 []float64) error {
	n := c.Iterations
	c.Intervals = make([]Interval, len(c.Values))
	c.Widths = make([]float64, len(c.Values))
	for m, xs := range c.Values {
		if m > 0 && allZero(xs) {
			c.Intervals[m] = Interval{N: n, Level: c.Spec.Level}
			continue
		}
		mean := stat.Mean(xs, nil)
		half := t * s0[m] / math.Sqrt(float64(n))
		iv := Interval{Mean: mean, Low: mean - half, High: mean + half, HalfWidth: half, N: n, Level: c.Spec.Level}
		if mean == 0 {
			return fmt.Errorf("confidence: mean of %s is 0; a width in percent is undefined", c.Spec.name(m))
		}
		iv.WidthPct = 200 * half / math.Abs(mean)
		c.Intervals[m] = iv
		c.Widths[m] = iv.WidthPct
	}
	return nil
}
