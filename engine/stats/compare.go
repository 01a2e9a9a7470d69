package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Comparison is the outcome of comparing two series of measurements, A (the
// baseline) and B (the candidate), e.g. throughput before and after a change.
type Comparison struct {
	MeanA, MeanB float64
	Delta        float64 // MeanB − MeanA
	DeltaPct     float64 // 100·Delta/|MeanA|: positive when B is larger
	// Low and High bound the Welch confidence interval of Delta at Level.
	Low, High float64
	// DF is the Welch–Satterthwaite degrees of freedom (fractional); when
	// both series are constant it is len(a)+len(b)−2, see Compare.
	DF    float64
	Level float64 // confidence level in percent
	// Significant is true when the interval excludes 0: at this level the
	// data do not fit "A and B have the same mean".
	Significant bool
}

// Compare tells whether b's mean differs from a's, with a Welch confidence
// interval for the difference MeanB − MeanA at level percent. Welch's
// interval does not assume equal variances, which suits benchmark runs whose
// noise changes with the configuration. Each series needs at least two
// finite values, and a's mean must not be 0 (DeltaPct is relative to it).
//
// Zero variance: if both series are constant there is no noise to scale an
// interval by, so the interval is the single point Delta (Low = High =
// Delta), DF is reported as len(a)+len(b)−2, and Significant is true exactly
// when Delta ≠ 0. If only one series is constant, Welch's formulas stay
// well defined (DF becomes the other series' n−1) and are used as they are.
func Compare(a, b []float64, level float64) (Comparison, error) {
	if err := checkLevel("compare", level); err != nil {
		return Comparison{}, err
	}
	for _, s := range []struct {
		name string
		xs   []float64
	}{{"a", a}, {"b", b}} {
		if len(s.xs) < 2 {
			return Comparison{}, fmt.Errorf("compare: %s needs at least 2 values to estimate its noise, got %d", s.name, len(s.xs))
		}
		if err := checkFinite("compare: "+s.name, s.xs); err != nil {
			return Comparison{}, err
		}
	}
	na, nb := float64(len(a)), float64(len(b))
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	for _, v := range []float64{ma, va, mb, vb} {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return Comparison{}, fmt.Errorf("compare: the values are too large in magnitude for a float64 mean and variance")
		}
	}
	if ma == 0 {
		return Comparison{}, fmt.Errorf("compare: mean of a is 0, so the difference in percent of it is undefined")
	}
	c := Comparison{
		MeanA: ma,
		MeanB: mb,
		Delta: mb - ma,
		Level: level,
	}
	c.DeltaPct = 100 * c.Delta / math.Abs(ma)
	if math.IsInf(c.Delta, 0) || math.IsInf(c.DeltaPct, 0) {
		return Comparison{}, fmt.Errorf("compare: the difference of the means overflows a float64 in percent of a's mean %g", ma)
	}

	ra, rb := va/na, vb/nb // squared standard errors of the two means
	if ra == 0 && rb == 0 {
		c.Low, c.High = c.Delta, c.Delta
		c.DF = na + nb - 2
		c.Significant = c.Delta != 0
		return c, nil
	}
	// Welch–Satterthwaite: df = (ra+rb)² / (ra²/(na−1) + rb²/(nb−1)),
	// computed on ra, rb scaled by their maximum so that tiny variances
	// cannot underflow to 0/0.
	scale := math.Max(ra, rb)
	sa, sb := ra/scale, rb/scale
	c.DF = (sa + sb) * (sa + sb) / (sa*sa/(na-1) + sb*sb/(nb-1))
	half := tQuantile(level, c.DF) * math.Sqrt(ra+rb)
	if math.IsInf(half, 0) {
		return Comparison{}, fmt.Errorf("compare: the values are too large in magnitude for a float64 interval")
	}
	c.Low, c.High = c.Delta-half, c.Delta+half
	c.Significant = c.Low > 0 || c.High < 0
	return c, nil
}

// ABBA returns the order in which to run a baseline A (0) and a candidate B
// (1) so that each runs `runs` times: A B, B A, A B, B A, …
//
// Alternating the pairs makes A and B occupy the same positions on average,
// so a slow drift of the machine (warming caches, thermal throttling, a
// filling disk, background load ramping up) adds about as much to one as to
// the other and cancels in the difference, where a plain A A A B B B order
// would report the drift as a difference between A and B. runs ≤ 0 gives an
// empty order; runs above MaxIterationsLimit, which callers should reject
// first, are clamped to it rather than allocating without bound.
func ABBA(runs int) []int {
	if runs <= 0 {
		return []int{}
	}
	runs = min(runs, MaxIterationsLimit)
	order := make([]int, 0, 2*runs)
	for k := range runs {
		if k%2 == 0 {
			order = append(order, 0, 1)
		} else {
			order = append(order, 1, 0)
		}
	}
	return order
}

// MinCompareRuns is the fewest runs per side from which Compare's
// false-positive rate holds: with identical configurations, a comparison
// at level 95 comes out significant in at most about 5.4 % of cases from 5
// runs each on, whatever the ratio of the two sides' standard deviations
// (simulated, 100,000 to 200,000 trials per point, over ratios 1:1 to
// 1:100). Below, when the noise differs, Welch's approximation of the
// degrees of freedom is too generous: 5.5 % at 4 runs (1:5), 5.8 % at 3
// and 6.2 % at 2 (1:10). With equal noise the rate falls below the level
// instead (2.3 % at 2 runs: the comparison loses power).
const MinCompareRuns = 5
