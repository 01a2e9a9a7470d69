package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// checkLevel validates a confidence level given in percent.
func checkLevel(op string, level float64) error {
	if !(level > 0 && level < 100) {
		return fmt.Errorf("%s: confidence level must be between 0 and 100 percent (exclusive), got %v", op, level)
	}
	return nil
}

// tQuantile returns the two-sided critical value of Student's t for level
// (percent, already validated) and df > 0 degrees of freedom, which may be
// fractional (Welch). Sigma must be 1: gonum's zero value gives 0 for every
// quantile.
func tQuantile(level, df float64) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return t.Quantile((1 + level/100) / 2)
}

// TCritical returns the two-sided Student-t critical value for a confidence
// level in percent (0 < level < 100) and df ≥ 1 degrees of freedom: the
// (1+level/100)/2 quantile of t with df degrees of freedom. It replaces
// netperf's fixed table, which only knows 95 % and 99 % and df ≤ 30; for
// those entries it agrees with the table to its three decimals.
func TCritical(level float64, df int) (float64, error) {
	if err := checkLevel("t critical value", level); err != nil {
		return 0, err
	}
	if df < 1 {
		return 0, fmt.Errorf("t critical value needs at least 1 degree of freedom, got %d", df)
	}
	return tQuantile(level, float64(df)), nil
}

// Interval is a two-sided Student-t confidence interval for the mean of a
// series of independent measurements, with netperf's width figure.
type Interval struct {
	Mean      float64 // sample mean
	Low       float64 // Mean − HalfWidth
	High      float64 // Mean + HalfWidth
	HalfWidth float64 // t·s/√n
	// WidthPct is the FULL width 2·t·s/√n as a percentage of |Mean|: the
	// figure netperf prints as THROUGHPUT_CONFID and compares with -I's
	// width. netperf's banner "+/-2.500%" shows half of it.
	WidthPct float64
	N        int     // number of values
	Level    float64 // confidence level in percent
}

// CI returns the level-percent confidence interval for the mean of xs, the
// measure of how far a mean over a few iterations can be trusted. It needs
// at least two finite values and a non-zero mean (the width in percent of a
// zero mean is undefined).
func CI(xs []float64, level float64) (Interval, error) {
	if err := checkLevel("confidence interval", level); err != nil {
		return Interval{}, err
	}
	if len(xs) < 2 {
		return Interval{}, fmt.Errorf("confidence interval needs at least 2 values, got %d", len(xs))
	}
	if err := checkFinite("confidence interval", xs); err != nil {
		return Interval{}, err
	}
	iv, err := interval(xs, level, tQuantile(level, float64(len(xs)-1)))
	if err != nil {
		return Interval{}, err
	}
	if iv.Mean == 0 {
		return Interval{}, fmt.Errorf("confidence interval: mean is 0, so a width in percent of the mean is undefined")
	}
	return iv, nil
}

// interval computes the interval for at least two finite values with the
// critical value t already known. When the mean is 0 it leaves WidthPct at
// 0; callers decide what a zero mean means.
func interval(xs []float64, level, t float64) (Interval, error) {
	mean, sd := stat.MeanStdDev(xs, nil)
	if math.IsInf(mean, 0) || math.IsNaN(mean) || math.IsInf(sd, 0) || math.IsNaN(sd) {
		return Interval{}, fmt.Errorf("confidence interval: the values are too large in magnitude for a float64 mean and spread")
	}
	half := t * sd / math.Sqrt(float64(len(xs)))
	iv := Interval{
		Mean:      mean,
		Low:       mean - half,
		High:      mean + half,
		HalfWidth: half,
		N:         len(xs),
		Level:     level,
	}
	if mean != 0 {
		iv.WidthPct = 200 * half / math.Abs(mean)
		if math.IsInf(iv.WidthPct, 0) {
			return Interval{}, fmt.Errorf("confidence interval: mean %g is too close to 0 for a width in percent", mean)
		}
	}
	return iv, nil
}
