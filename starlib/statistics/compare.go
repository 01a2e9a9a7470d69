package statistics

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/stats"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

const compareDoc = `compare(a, b, runs=10, level=95, metric="throughput") -> comparison

Runs a and b in turn and says whether b really differs from a.

Says whether b differs from a, honestly: runs a and b (functions of no
arguments returning a result or a number) runs times each, alternately in
A B B A pairs so that a slow drift of the machine weighs on both alike, then
computes Welch's confidence interval at level percent for the difference of
the means of metric (b − a). The difference is significant when that interval
excludes zero. This replaces "ran it once with the patch and once without".

Returns a value with:
  mean_a, mean_b     means of metric
  delta, delta_pct   mean_b − mean_a, and that in percent of mean_a
  low, high          the interval of delta at level
  low_pct, high_pct  the same in percent of mean_a
  significant        True when the interval excludes 0
  level, runs, df    as given; df is Welch's degrees of freedom
  stddev_a, stddev_b sample standard deviations
  metric, units      the field compared ("value" for plain numbers)
  order              the order the runs took, e.g. "ABBAAB..."
  values_a, values_b metric per run
  results_a, results_b   what a and b returned
  latency_a, latency_b   latency over all transactions of each side, from the
                     merged histograms; None unless a and b return RR results

At level 95, identical configurations come out significant in about 5 % of
comparisons: a single significant result at the edge deserves a rerun. That
rate holds from runs=5 on (simulated: at most about 5.4 %, whatever the ratio
of the two sides' noise); with fewer runs, sides whose noise differs come out
significant more often (6.2 % at runs=2 with standard deviations 1 and 10,
5.8 % at runs=3), and compare() warns on stderr.

  c = compare(lambda: tcp_rr(duration=5),
              lambda: tcp_rr(duration=5, nodelay=True))
  print(c)  # both means with their unit, the delta and its interval
  print("%s %% (%s .. %s %%)" % (format(c.delta_pct, "+.1f"),
        format(c.low_pct, "+.1f"), format(c.high_pct, "+.1f")), c.significant)`

// compareBuiltin implements compare(); see compareDoc.
func compareBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fa, fb, metricV starlark.Value
	runs := 10
	level := number(95)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs,
		"a", &fa, "b", &fb, "runs?", &runs, "level?", &level, "metric?", &metricV); err != nil {
		return nil, err
	}
	if err := checkNoArgs(b.Name(), "a", fa); err != nil {
		return nil, err
	}
	if err := checkNoArgs(b.Name(), "b", fb); err != nil {
		return nil, err
	}
	if runs < 2 {
		return nil, fmt.Errorf("%s: runs must be at least 2 (each side needs two values to estimate its noise), got %d", b.Name(), runs)
	}
	if runs > stats.MaxIterationsLimit {
		return nil, fmt.Errorf("%s: runs must be at most %d, got %d", b.Name(), stats.MaxIterationsLimit, runs)
	}
	if err := checkLevel(b.Name(), float64(level)); err != nil {
		return nil, err
	}
	metric, explicit, err := metricArg(b.Name(), metricV)
	if err != nil {
		return nil, err
	}
	env, err := thread.Session(th)
	if err != nil {
		return nil, err
	}
	ctx := thread.Context(th)
	warnFewRuns(env, runs, callerPos(th))

	order := stats.ABBA(runs)
	fns := [2]starlark.Value{fa, fb}
	labels := [2]string{"a", "b"}
	var vals [2][]float64
	var rets [2][]starlark.Value
	var seq strings.Builder
	var failed [2]failedRuns
	for k, side := range order {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		if env.Progress != nil {
			env.Progress.Iteration(b.Name()+" "+labels[side], k+1, len(order))
		}
		m, err := call(th, labels[side], fns[side], metric, explicit)
		if err != nil {
			return nil, fmt.Errorf("%s: run %d of %d (%s): %w", b.Name(), k+1, len(order), labels[side], err)
		}
		if failed[side].add(m) {
			seq.WriteString(labels[side]) // lower case: this run failed
			continue
		}
		vals[side] = append(vals[side], m.value)
		rets[side] = append(rets[side], m.ret)
		seq.WriteString(strings.ToUpper(labels[side]))
	}
	for side := range failed {
		if len(vals[side]) < 2 {
			return nil, fmt.Errorf("%s: %d of %d runs of %s failed (the first: %s), leaving too few to compare",
				b.Name(), failed[side].n, runs, labels[side], failed[side].first)
		}
	}
	cmp, err := stats.Compare(vals[0], vals[1], float64(level))
	if err != nil {
		return nil, err
	}

	name := metric
	if _, ok := values.Number(rets[0][0]); ok {
		name = "value"
	}
	units := unitsOf(rets[0][0], metric)
	f := values.NewFields("comparison")
	f.Set("metric", starlark.String(name))
	f.Set("units", starlark.String(units))
	f.Set("mean_a", starlark.Float(cmp.MeanA))
	f.Set("mean_b", starlark.Float(cmp.MeanB))
	f.Set("delta", starlark.Float(cmp.Delta))
	f.Set("delta_pct", starlark.Float(cmp.DeltaPct))
	f.Set("low", starlark.Float(cmp.Low))
	f.Set("high", starlark.Float(cmp.High))
	f.Set("low_pct", starlark.Float(100*cmp.Low/abs(cmp.MeanA)))
	f.Set("high_pct", starlark.Float(100*cmp.High/abs(cmp.MeanA)))
	f.Set("significant", starlark.Bool(cmp.Significant))
	f.Set("level", starlark.Float(cmp.Level))
	f.Set("runs", starlark.MakeInt(runs))
	f.Set("df", starlark.Float(cmp.DF))
	f.Set("stddev_a", starlark.Float(sampleStddev(vals[0])))
	f.Set("stddev_b", starlark.Float(sampleStddev(vals[1])))
	f.Set("order", starlark.String(seq.String()))
	f.Set("failed_a", starlark.MakeInt(failed[0].n))
	f.Set("failed_b", starlark.MakeInt(failed[1].n))
	f.Set("values_a", floatList(vals[0]))
	f.Set("values_b", floatList(vals[1]))
	f.Set("results_a", frozenList(rets[0]))
	f.Set("results_b", frozenList(rets[1]))
	for side, key := range []string{"latency_a", "latency_b"} {
		lat, err := mergedLatency(rets[side])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		f.Set(key, lat)
	}
	f.SetString(func() string {
		verdict := "not significant"
		if cmp.Significant {
			verdict = "significant"
		}
		u := ""
		if units != "" {
			u = " " + units
		}
		fails := ""
		if n := failed[0].n + failed[1].n; n > 0 {
			fails = fmt.Sprintf("; failed and left out: %d of a, %d of b", failed[0].n, failed[1].n)
		}
		return fmt.Sprintf("<comparison %s: a %s, b %s%s, delta %s (%s), %s interval %s .. %s: %s (%d runs each%s)>",
			name, num(cmp.MeanA), num(cmp.MeanB), u, signed(cmp.Delta), signedPct(cmp.DeltaPct),
			pct(cmp.Level), signed(cmp.Low), signed(cmp.High), verdict, runs, fails)
	})
	f.Freeze()
	return f, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// signed formats a difference with its sign.
func signed(x float64) string {
	if x >= 0 {
		return "+" + num(x)
	}
	return num(x)
}

// signedPct formats a relative difference with its sign.
func signedPct(x float64) string {
	if x >= 0 {
		return "+" + pct(x)
	}
	return pct(x)
}
