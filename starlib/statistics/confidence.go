package statistics

import (
	"fmt"
	"io"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/stats"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

const confidenceDoc = `confidence(fn, level=99, width=5, min=3, max=10, metric="throughput", ...)

Repeats fn until its mean is known to width % (netperf -i, -I).

Runs fn (a function of no arguments that returns a result or a number) as
whole, independent iterations until the level-percent Student-t confidence
interval of the mean of metric is no wider than width percent of the mean, or
max iterations are spent: netperf's -i max,min -I level,width.

After each iteration from the second on, the full width 2·t(level, n−1)·s/√n
as a percentage of the mean is compared with width; the loop stops when it is
within width and at least min iterations ran. When fn returns results with
local_cpu / remote_cpu figures (cpu_util=True) and metric is not given, those
count toward the rule too, as in netperf; figures that are None do not.

method="netperf" (the default) runs that rule. It stops when the sample
happens to look tight, so the interval it ends with covers the true mean
less often than level says (simulated with 1 % noise, level 95, width 2,
min 3, max 30: 92 %). method="two_stage" runs
Stein's two-stage procedure instead: the first min iterations estimate the
variance, the number of iterations needed for width at level follows from it
(planned; at most max are run), and the interval over all of them uses the
first stage's variance with t(level, min−1). Its coverage is what level says
for normally distributed values, met or not; it usually runs more
iterations. met is then True when planned ≤ max.

Differences from netperf, on purpose: any level in (0, 100) (netperf: 95 or
99); max is not capped at 30; metric may be any numeric field of the result,
dotted for nested ones ("latency.p99"); fn may return a plain number.

Returns a value with:
  mean, low, high   the mean of metric and its interval at level
  stddev            sample standard deviation of the values
  width             achieved full width, percent of the mean (THROUGHPUT_CONFID)
  target_width      the width asked for
  level, min, max   as given
  iterations        how many times fn ran
  met               True when the target was reached
  method            the rule that ran: "netperf" or "two_stage"
  planned           two_stage: the iterations the first stage called for;
                    None for netperf's rule
  metric            the field measured ("value" when fn returns numbers)
  units             the result's units when metric is throughput
  values            metric per iteration
  widths            dict: achieved width per tracked figure (the metric,
                    and local_cpu, remote_cpu when measured)
  width_history     the width after iterations 2, 3, ... (two_stage: only
                    the final width)
  results           what fn returned, per iteration
  latency           latency over every transaction of every iteration, from the
                    merged histograms (not averaged percentiles); None unless fn
                    returns RR results
  local_cpu, remote_cpu  mean CPU utilisation over the iterations, or None
  partial           True for the value the REPL keeps in _ when Ctrl-C
                    stops confidence(): the iterations that finished

When the target is not met, a warning on stderr says so, as netperf's does,
with the achieved widths: the variability must be investigated before the
figures are trusted.

  c = confidence(lambda: tcp_rr(duration=10), level=99, width=1, max=30)
  print(c)  # the mean with its unit, +/- half the width, met or not
  print("%s %s, p99 %s us" % (format(c.mean, ",.0f"), c.units,
                              format(c.latency.p99, ".1f")))`

// confidenceBuiltin implements confidence(); see confidenceDoc.
func confidenceBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn, metricV starlark.Value
	level, width := number(99), number(5)
	minN, maxN := 3, 10
	method := stats.MethodNetperf
	if err := starlark.UnpackArgs(b.Name(), args, kwargs,
		"fn", &fn, "level?", &level, "width?", &width, "min?", &minN, "max?", &maxN, "metric?", &metricV, "method?", &method); err != nil {
		return nil, err
	}
	if err := checkNoArgs(b.Name(), "fn", fn); err != nil {
		return nil, err
	}
	metric, explicit, err := metricArg(b.Name(), metricV)
	if err != nil {
		return nil, err
	}
	// names is shared with spec (a slice header copy), so naming the
	// headline "value" once fn turns out to return numbers reaches the
	// engine's messages too.
	names := []string{metric}
	if !explicit {
		names = append(names, "local_cpu", "remote_cpu")
	}
	spec := stats.ConfidenceSpec{Level: float64(level), Width: float64(width), Min: minN, Max: maxN, Names: names, Method: method}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	env, err := thread.Session(th)
	if err != nil {
		return nil, err
	}
	ctx := thread.Context(th)

	var rets []starlark.Value
	var failed failedRuns
	iterate := func(i int) ([]float64, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if env.Progress != nil {
			env.Progress.Iteration(b.Name(), i, spec.Max)
		}
		m, err := call(th, "fn", fn, metric, explicit)
		for err == nil && failed.add(m) {
			// A failed test gives no value: the iteration runs again,
			// up to max failures in all.
			if failed.n >= spec.Max {
				return nil, fmt.Errorf("fn's test failed %d times (the first: %s)", failed.n, failed.first)
			}
			if err = ctx.Err(); err != nil {
				return nil, err
			}
			m, err = call(th, "fn", fn, metric, explicit)
		}
		if err != nil {
			return nil, err
		}
		if i == 1 {
			if _, ok := values.Number(m.ret); ok {
				names[0] = "value"
			}
		}
		rets = append(rets, m.ret)
		if explicit {
			return []float64{m.value}, nil
		}
		// Not measured (None, or no such field yet) feeds 0, which the
		// engine's all-zero rule ignores, as netperf ignores its -1s.
		lc, _ := optionalNumber(m.ret, "local_cpu")
		rc, _ := optionalNumber(m.ret, "remote_cpu")
		return []float64{m.value, lc, rc}, nil
	}
	c, err := stats.RunConfidence(spec, iterate)
	if err != nil {
		return nil, partialConfidence(err, c, rets, metric, failed)
	}
	v, err := confidenceValue(c, rets, unitsOf(rets[0], metric), failed)
	if err != nil {
		return nil, err
	}
	if !c.Met {
		where := ""
		if th.CallStackDepth() > 1 {
			where = th.CallFrame(1).Pos.String()
		}
		warnNotMet(env.Stderr, c, where)
	}
	return v, nil
}

// confidenceValue builds the value confidence() returns.
// failed counts the runs whose test failed and were run again.
func confidenceValue(c *stats.Confidence, rets []starlark.Value, units string, failed failedRuns) (*values.Fields, error) {
	iv := c.Intervals[0]
	spec := c.Spec
	f := values.NewFields("confidence")
	f.Set("metric", starlark.String(spec.Names[0]))
	f.Set("mean", starlark.Float(iv.Mean))
	f.Set("low", starlark.Float(iv.Low))
	f.Set("high", starlark.Float(iv.High))
	f.Set("stddev", starlark.Float(sampleStddev(c.Values[0])))
	f.Set("width", starlark.Float(c.Widths[0]))
	f.Set("target_width", starlark.Float(spec.Width))
	f.Set("level", starlark.Float(spec.Level))
	f.Set("min", starlark.MakeInt(spec.Min))
	f.Set("max", starlark.MakeInt(spec.Max))
	f.Set("iterations", starlark.MakeInt(c.Iterations))
	f.Set("met", starlark.Bool(c.Met))
	setMethod(f, c)
	f.Set("units", starlark.String(units))
	f.Set("values", floatList(c.Values[0]))
	widths := starlark.NewDict(len(c.Widths))
	for m, w := range c.Widths {
		if m > 0 && allZeroValues(c.Values[m]) {
			continue // not measured
		}
		widths.SetKey(starlark.String(spec.Names[m]), starlark.Float(w))
	}
	f.Set("widths", widths)
	f.Set("width_history", floatList(c.History))
	f.Set("results", frozenList(rets))
	lat, err := mergedLatency(rets)
	if err != nil {
		return nil, fmt.Errorf("confidence: %w", err)
	}
	f.Set("latency", lat)
	for _, name := range []string{"local_cpu", "remote_cpu"} {
		f.Set(name, meanOfField(rets, name))
	}
	f.Set("partial", starlark.False) // partialConfidence sets True
	f.Set("failed", starlark.MakeInt(failed.n))
	f.SetString(func() string {
		state := fmt.Sprintf("met after %d iterations", c.Iterations)
		if !c.Met {
			state = fmt.Sprintf("NOT met in %d iterations", c.Iterations)
		}
		u := ""
		if units != "" {
			u = " " + units
		}
		fails := ""
		if failed.n > 0 {
			fails = fmt.Sprintf("; %d failed runs left out", failed.n)
		}
		return fmt.Sprintf("<confidence %s %s%s +/-%s @ %s conf.: %s (width %s, target %s%s)>",
			spec.Names[0], num(iv.Mean), u, pct(c.Widths[0]/2), pct(spec.Level), state, pct(c.Widths[0]), pct(spec.Width), fails)
	})
	f.Freeze()
	return f, nil
}

// meanOfField is the mean of the numeric field name over rets, or None when
// any of them lacks it (not measured).
func meanOfField(rets []starlark.Value, name string) starlark.Value {
	xs := make([]float64, 0, len(rets))
	for _, v := range rets {
		x, ok := optionalNumber(v, name)
		if !ok {
			return starlark.None
		}
		xs = append(xs, x)
	}
	m, err := stats.Mean(xs)
	if err != nil {
		return starlark.None
	}
	return starlark.Float(m)
}

func allZeroValues(xs []float64) bool {
	for _, x := range xs {
		if x != 0 {
			return false
		}
	}
	return true
}

// warnNotMet writes netperf's warning for a confidence target that was not
// reached, with the achieved widths; where is the script position of the
// confidence() call.
func warnNotMet(w io.Writer, c *stats.Confidence, where string) {
	if w == nil {
		return
	}
	var b strings.Builder
	b.WriteString("!!! WARNING")
	if where != "" {
		b.WriteString(" (confidence() at " + where + ")")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "!!! Desired confidence was not achieved within the specified iterations (%d).\n", c.Iterations)
	b.WriteString("!!! This implies that there was variability in the test environment that\n")
	b.WriteString("!!! must be investigated before going further.\n")
	methodWarning(&b, c)
	labels := []string{c.Spec.Names[0], "Local CPU util", "Remote CPU util"}
	for m, w := range c.Widths {
		lead := "!!!                       "
		if m == 0 {
			lead = "!!! Confidence intervals: "
		}
		note := ""
		switch {
		case m == 0:
			note = fmt.Sprintf(" (wanted %s at %s)", pct(c.Spec.Width), pct(c.Spec.Level))
		case allZeroValues(c.Values[m]):
			note = " (not measured)"
		}
		fmt.Fprintf(&b, "%s%-16s: %.3f%%%s\n", lead, labels[m], w, note)
	}
	// How the width moved tells a trend (still narrowing: more iterations
	// would do) from noise (no progress: fix the environment).
	if n := len(c.History); n > 1 {
		const keep = 7 // fits an 80-column line
		first := max(0, n-keep)
		hs := make([]string, 0, keep)
		for _, h := range c.History[first:] {
			hs = append(hs, fmt.Sprintf("%.1f%%", h))
		}
		fmt.Fprintf(&b, "!!! Width after iterations %d..%d: %s\n", first+2, c.Iterations, strings.Join(hs, " "))
	}
	io.WriteString(w, b.String())
}
