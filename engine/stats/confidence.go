package stats

import (
	"errors"
	"fmt"
	"math"
)

// MaxIterationsLimit is the largest Max a ConfidenceSpec accepts. netperf
// caps its iterations at 30; netscript does not, but a bound this high only
// catches typos (an extra zero or two), not real plans.
const MaxIterationsLimit = 10000

// ConfidenceSpec is the stopping rule of netperf's -i max,min -I level,width:
// run at least Min and at most Max whole iterations, and stop as soon as the
// Level-percent confidence interval of every tracked metric is no wider than
// Width percent of its mean (full width, as netperf counts it).
type ConfidenceSpec struct {
	Level float64 // confidence level in percent, 0 < Level < 100 (netperf -I level)
	Width float64 // target full interval width in percent of the mean (netperf -I width)
	Min   int     // iterations always run, ≥ 2 (netperf -i ,min)
	Max   int     // iterations never exceeded, Min ≤ Max ≤ MaxIterationsLimit (netperf -i max)

	// Names optionally names the metrics in error messages, in the order
	// iterate returns them. Missing or empty names default to "throughput"
	// for metric 0 and "metric N" for the others.
	Names []string

	// Method is the stopping rule: MethodNetperf ("" too) or
	// MethodTwoStage.
	Method string
}

// Validate checks the spec and names the offending option in its error.
func (s ConfidenceSpec) Validate() error {
	if !(s.Level > 0 && s.Level < 100) {
		return fmt.Errorf("confidence: level must be between 0 and 100 percent (exclusive), got %v", s.Level)
	}
	if !(s.Width > 0) || math.IsInf(s.Width, 0) {
		return fmt.Errorf("confidence: width must be a positive, finite percentage of the mean, got %v", s.Width)
	}
	if s.Min < 2 {
		return fmt.Errorf("confidence: min must be at least 2, got %d (an interval needs two iterations)", s.Min)
	}
	if s.Max < s.Min {
		return fmt.Errorf("confidence: max must be at least min (%d), got %d", s.Min, s.Max)
	}
	if s.Max > MaxIterationsLimit {
		return fmt.Errorf("confidence: max must be at most %d, got %d", MaxIterationsLimit, s.Max)
	}
	return checkMethod(s.Method)
}

// name returns the display name of metric m.
func (s ConfidenceSpec) name(m int) string {
	if m < len(s.Names) && s.Names[m] != "" {
		return s.Names[m]
	}
	if m == 0 {
		return "throughput"
	}
	return fmt.Sprintf("metric %d", m)
}

// Confidence is what RunConfidence measured and concluded.
type Confidence struct {
	Spec ConfidenceSpec
	// Values[m][k] is metric m's value in iteration k+1; metric 0 is the
	// headline figure.
	Values [][]float64
	// Intervals and Widths describe each metric over all iterations; Widths[m]
	// is Intervals[m].WidthPct, the achieved full width in percent. A metric
	// whose values are all 0 (not measured) has a zero Interval apart from N
	// and Level, and width 0. Both are nil until two iterations have run.
	Intervals []Interval
	Widths    []float64
	// History[k] is the headline width in percent after iteration k+2 (the
	// first iteration has no interval), to show how it evolved when the
	// target was missed.
	History []float64
	// Iterations is the number of iterations whose values were recorded.
	Iterations int
	// Met says whether the rule was satisfied: at least Min iterations ran
	// and every tracked metric reached the target width. It is false when
	// the loop gave up at Max or stopped on an error.
	Met bool

	// Method is the rule that ran: MethodNetperf or MethodTwoStage.
	Method string
	// Planned, MethodTwoStage: the iterations the first stage called for
	// (at most MaxIterationsLimit+1); Iterations is it capped at Max.
	Planned int
}

// RunConfidence runs whole, independent iterations until the confidence
// rule in spec is satisfied, the way netperf's -i/-I loop does, and returns
// the values and intervals.
//
// iterate is called with i = 1, 2, … and returns one finite value per
// tracked metric, the same number every time: metric 0 is the headline
// figure (throughput, transaction rate), the others are figures that also
// count toward the stopping rule, such as local and remote CPU utilisation.
// From the second iteration on each metric's full width in percent is
// computed; the loop stops after iteration n when n ≥ Min and every width is
// ≤ Width (Met is true), or when n == Max (Met is true only if that last
// iteration met the target).
//
// All-zero rule: a metric other than the headline one whose values so far
// are all exactly 0 is treated as not measured, gets width 0 and never blocks
// convergence, as netperf reports 0.000 % for CPU figures it did not measure.
// A constant non-zero metric gets width 0 in the ordinary way. A metric whose
// mean is 0 although some values are not (only possible with negative
// values) has no defined width in percent and is an error, as is a zero mean
// of the headline metric.
//
// When iterate fails, the loop stops and the error is returned wrapped with
// the iteration number, together with a Confidence holding what was
// measured before it. An invalid spec returns no Confidence; the other
// errors (a missing, extra or non-finite value, a zero mean) also return
// the partial Confidence, whose Intervals, Widths and History then describe
// the last iteration for which they could be computed.
//
// Widths use exact t quantiles (TCritical) where netperf uses its table
// rounded to three decimals, so they can differ from netperf's in the
// fourth significant digit.
func RunConfidence(spec ConfidenceSpec, iterate func(i int) ([]float64, error)) (*Confidence, error) {
	p, err := NewProcedure(spec)
	if err != nil {
		return nil, err
	}
	return p.Run(iterate)
}

// Run runs p's rule once; see RunConfidence.
func (p *Procedure) Run(iterate func(i int) ([]float64, error)) (*Confidence, error) {
	if iterate == nil {
		return nil, errors.New("confidence: no iteration function given")
	}
	spec := p.spec
	if spec.Method == MethodTwoStage {
		return p.runTwoStage(iterate)
	}
	c := &Confidence{Spec: spec, Method: MethodNetperf}
	for i := 1; i <= spec.Max; i++ {
		vals, err := iterate(i)
		if err != nil {
			return c, fmt.Errorf("confidence: iteration %d: %w", i, err)
		}
		if err := c.record(i, vals); err != nil {
			return c, err
		}
		if i < 2 {
			continue
		}
		if err := c.update(p.tq(i - 1)); err != nil {
			return c, err
		}
		c.Met = i >= spec.Min
		for _, w := range c.Widths {
			if w > spec.Width {
				c.Met = false
				break
			}
		}
		if c.Met {
			break
		}
	}
	return c, nil
}

// record checks iteration i's values and appends them.
func (c *Confidence) record(i int, vals []float64) error {
	if len(vals) == 0 {
		return fmt.Errorf("confidence: iteration %d returned no values; it must return at least the %s", i, c.Spec.name(0))
	}
	if c.Values != nil && len(vals) != len(c.Values) {
		return fmt.Errorf("confidence: iteration %d returned %d values, but earlier iterations returned %d", i, len(vals), len(c.Values))
	}
	for m, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("confidence: iteration %d: %s is %v; every measurement must be a finite number", i, c.Spec.name(m), v)
		}
	}
	if c.Values == nil {
		c.Values = make([][]float64, len(vals))
		for m := range c.Values {
			c.Values[m] = make([]float64, 0, c.Spec.Min)
		}
	}
	for m, v := range vals {
		c.Values[m] = append(c.Values[m], v)
	}
	c.Iterations = i
	return nil
}

// update recomputes every metric's interval after an iteration (n ≥ 2),
// with t the critical value for n − 1 degrees of freedom, and appends the
// headline width to History. On error it leaves the previous intervals in
// place.
func (c *Confidence) update(t float64) error {
	n := c.Iterations
	ivs := make([]Interval, len(c.Values))
	widths := make([]float64, len(c.Values))
	for m, xs := range c.Values {
		if m > 0 && allZero(xs) {
			ivs[m] = Interval{N: n, Level: c.Spec.Level}
			continue
		}
		iv, err := interval(xs, c.Spec.Level, t)
		if err != nil {
			return fmt.Errorf("confidence: %s after iteration %d: %w", c.Spec.name(m), n, err)
		}
		if iv.Mean == 0 {
			return fmt.Errorf("confidence: mean of %s is 0; a width in percent is undefined", c.Spec.name(m))
		}
		ivs[m] = iv
		widths[m] = iv.WidthPct
	}
	c.Intervals = ivs
	c.Widths = widths
	c.History = append(c.History, widths[0])
	return nil
}

// allZero reports whether every value in xs is exactly 0.
func allZero(xs []float64) bool {
	for _, x := range xs {
		if x != 0 {
			return false
		}
	}
	return true
}
