package statistics

import (
	"fmt"
	"math"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"netscript/engine/stats"
	"netscript/starlib/values"
)

const statsDoc = `stats (module)

Computes descriptive statistics and confidence intervals over lists of
numbers.

  stats.mean(xs)           arithmetic mean
  stats.stddev(xs)         sample standard deviation (n−1); needs 2 values
  stats.median(xs)         the middle value (mean of the two middle ones)
  stats.percentile(xs, q)  q-th percentile by linear interpolation (numpy's
                           default); see help("stats.percentile")
  stats.ci(xs, level=95)   Student-t confidence interval of the mean: a
                           value with low, high, mean, width, ...;
                           see help("stats.ci")

Every function refuses an empty list, a value that is not a number, and NaN
or infinity, with an error that names it; none returns NaN.
  xs = confidence(lambda: tcp_rr(duration=2)).values
  print(stats.median(xs), stats.percentile(xs, 90), stats.ci(xs, 99))`

// statsDocs documents each member of the stats module.
var statsDocs = map[string]string{
	"stats.mean": `stats.mean(xs) -> float

Returns the arithmetic mean of a non-empty list or tuple of numbers.`,
	"stats.stddev": `stats.stddev(xs) -> float

Returns the sample standard deviation (divisor n−1, as netperf's confidence
intervals and every t test use); needs at least 2 values.`,
	"stats.median": `stats.median(xs) -> float

Returns the middle value of xs, or the mean of the two middle values when the
count is even; the same as stats.percentile(xs, 50). xs is not reordered.`,
	"stats.percentile": `stats.percentile(xs, q) -> float

Returns the q-th percentile of xs, 0 ≤ q ≤ 100 (a percentile, not a
fraction), by linear interpolation between the two nearest ranks: sort xs into
x[0] ≤ … ≤ x[n−1], take r = q/100·(n−1), return
x[⌊r⌋] + (r−⌊r⌋)·(x[⌊r⌋+1] − x[⌊r⌋]). This is numpy.percentile's default,
Excel's PERCENTILE.INC and R's type 7: percentile 0 is the minimum, 100 the
maximum, 50 the median. For latency percentiles of a test, use its result's
latency fields, which come from the full histogram.
  stats.percentile([15, 20, 35, 40, 50], 40)   # 29.0`,
	"stats.ci": `stats.ci(xs, level=95) -> interval

Returns the two-sided Student-t confidence interval of the mean of xs at level
percent (0 < level < 100); needs at least 2 values. Returns a value with:
  low, high    the interval: mean ∓ half_width
  mean         the mean of xs
  half_width   t(level, n−1)·s/√n
  width        the full width 2·t·s/√n in percent of |mean|: the figure
               netperf reports as THROUGHPUT_CONFID and confidence()
               compares with its width; None when the mean is 0
  stddev, level, n
  iv = stats.ci([196599.6, 200704.4, 197639.9], 95)
  print(iv.low, iv.high, iv.width)   # width 5.35 (%)`,
}

// statsModule returns the stats module.
func statsModule() *starlarkstruct.Module {
	return &starlarkstruct.Module{
		Name: "stats",
		Members: starlark.StringDict{
			"mean":       starlark.NewBuiltin("stats.mean", statsOne(stats.Mean)),
			"stddev":     starlark.NewBuiltin("stats.stddev", statsStddev),
			"median":     starlark.NewBuiltin("stats.median", statsOne(stats.Median)),
			"percentile": starlark.NewBuiltin("stats.percentile", statsPercentile),
			"ci":         starlark.NewBuiltin("stats.ci", statsCI),
		},
	}
}

// floatsArg converts the list argument xs of builtin into float64s, naming
// the first element that is not a finite number.
func floatsArg(builtin string, v starlark.Value, atLeast int) ([]float64, error) {
	var elems []starlark.Value
	switch x := v.(type) {
	case *starlark.List:
		for i := 0; i < x.Len(); i++ {
			elems = append(elems, x.Index(i))
		}
	case starlark.Tuple:
		elems = x
	default:
		return nil, fmt.Errorf("%s: xs must be a list of numbers, got %s", builtin, v.Type())
	}
	xs := make([]float64, len(elems))
	for i, e := range elems {
		f, ok := values.Number(e)
		if !ok {
			return nil, fmt.Errorf("%s: xs[%d] is %s (%s), not a number", builtin, i, e.String(), e.Type())
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: xs[%d] is %v; every value must be a finite number", builtin, i, e)
		}
		xs[i] = f
	}
	switch {
	case len(xs) == 0:
		return nil, fmt.Errorf("%s: xs is empty; it needs at least %d number%s", builtin, atLeast, plural(atLeast))
	case len(xs) < atLeast:
		return nil, fmt.Errorf("%s: needs at least %d values, got %d", builtin, atLeast, len(xs))
	}
	return xs, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// statsOne adapts a one-list engine function to a builtin.
func statsOne(f func([]float64) (float64, error)) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "xs", &v); err != nil {
			return nil, err
		}
		xs, err := floatsArg(b.Name(), v, 1)
		if err != nil {
			return nil, err
		}
		r, err := f(xs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		return starlark.Float(r), nil
	}
}

// statsStddev implements stats.stddev(xs).
func statsStddev(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "xs", &v); err != nil {
		return nil, err
	}
	xs, err := floatsArg(b.Name(), v, 2)
	if err != nil {
		return nil, err
	}
	s, err := stats.Stddev(xs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.Float(s), nil
}

// statsPercentile implements stats.percentile(xs, q).
func statsPercentile(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	var q number
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "xs", &v, "q", &q); err != nil {
		return nil, err
	}
	if !(q >= 0 && q <= 100) {
		return nil, fmt.Errorf("%s: q must be between 0 and 100 (a percentile, not a fraction), got %v", b.Name(), float64(q))
	}
	xs, err := floatsArg(b.Name(), v, 1)
	if err != nil {
		return nil, err
	}
	p, err := stats.Percentile(xs, float64(q))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.Float(p), nil
}

// statsCI implements stats.ci(xs, level=95).
func statsCI(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	level := number(95)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "xs", &v, "level?", &level); err != nil {
		return nil, err
	}
	if err := checkLevel(b.Name(), float64(level)); err != nil {
		return nil, err
	}
	xs, err := floatsArg(b.Name(), v, 2)
	if err != nil {
		return nil, err
	}
	mean, err := stats.Mean(xs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	sd, err := stats.Stddev(xs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	var iv stats.Interval
	var width starlark.Value = starlark.None
	if mean != 0 {
		if iv, err = stats.CI(xs, float64(level)); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		width = starlark.Float(iv.WidthPct)
	} else {
		// The interval is well defined; only its width in percent of a
		// zero mean is not, hence width None.
		t, err := stats.TCritical(float64(level), len(xs)-1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		half := t * sd / math.Sqrt(float64(len(xs)))
		iv = stats.Interval{Mean: 0, Low: -half, High: half, HalfWidth: half, N: len(xs), Level: float64(level)}
	}
	f := values.NewFields("interval")
	f.Set("low", starlark.Float(iv.Low))
	f.Set("high", starlark.Float(iv.High))
	f.Set("mean", starlark.Float(iv.Mean))
	f.Set("half_width", starlark.Float(iv.HalfWidth))
	f.Set("width", width)
	f.Set("stddev", starlark.Float(sd))
	f.Set("level", starlark.Float(iv.Level))
	f.Set("n", starlark.MakeInt(iv.N))
	f.SetString(func() string {
		w := "mean 0"
		if iv.Mean != 0 {
			w = "width " + pct(iv.WidthPct)
		}
		return fmt.Sprintf("<interval %s [%s, %s] @ %s conf.: %s, n=%d>",
			num(iv.Mean), num(iv.Low), num(iv.High), pct(iv.Level), w, iv.N)
	})
	f.Freeze()
	return f, nil
}
