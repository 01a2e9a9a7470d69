package statistics_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/internal/startest"
	"netscript/starlib"
	"netscript/starlib/statistics"
)

// TestStatisticsBadInput runs snippets of confidence(), compare() and stats
// that must fail, and checks that the error names the builtin, the argument
// and the cause, so a user can act on it.
func TestStatisticsBadInput(t *testing.T) {
	const seq = `
def seq(*vals):
    s = {"i": 0}
    def f():
        s["i"] += 1
        return vals[(s["i"] - 1) % len(vals)]
    return f
`
	cases := []struct{ code, want string }{
		// confidence(): the rule's parameters.
		{`confidence(lambda: 1, level=100)`, "confidence: level must be between 0 and 100 percent (exclusive), got 100"},
		{`confidence(lambda: 1, level=0)`, "confidence: level must be between 0 and 100 percent (exclusive), got 0"},
		{`confidence(lambda: 1, level=-5)`, "confidence: level must be between 0 and 100 percent (exclusive), got -5"},
		{`confidence(lambda: 1, level="99")`, `confidence: for parameter "level": want a number, got string`},
		{`confidence(lambda: 1, width=0)`, "confidence: width must be a positive, finite percentage of the mean, got 0"},
		{`confidence(lambda: 1, width=-1)`, "confidence: width must be a positive, finite percentage of the mean, got -1"},
		{`confidence(lambda: 1, min=1)`, "confidence: min must be at least 2, got 1 (an interval needs two iterations)"},
		{`confidence(lambda: 1, min=5, max=4)`, "confidence: max must be at least min (5), got 4"},
		{`confidence(lambda: 1, max=100000)`, "confidence: max must be at most 10000, got 100000"},
		{`confidence(lambda: 1, metric="")`, `confidence: metric must be a field name such as "throughput" or "latency.p99", got ""`},
		{`confidence(lambda: 1, metric=3)`, `confidence: metric must be a field name such as "throughput" or "latency.p99", got int`},
		{`confidence(lambda: 1, wdith=3)`, "confidence: unexpected keyword argument"},
		{`confidence()`, "confidence: missing argument for fn"},
		// confidence(): fn.
		{`confidence(3)`, "confidence: fn must be a function taking no arguments (such as lambda: tcp_rr(duration=10)), got int"},
		{`confidence(tcp_rr(transactions=10))`, "confidence: fn must be a function taking no arguments (such as lambda: tcp_rr(duration=10)), got result"},
		{`confidence(lambda x: x)`, "confidence: fn must take no arguments, but lambda requires x; wrap it, e.g. lambda: lambda(...)"},
		{"def run(size, *, n): pass\nconfidence(run)", "confidence: fn must take no arguments, but run requires size, n"},
		{"def noret(): pass\nconfidence(noret)", "confidence: iteration 1: fn returned None; it must return a number or a result (is a return statement missing?)"},
		{`confidence(lambda: [1, 2])`, "confidence: iteration 1: fn returned a list; it must return a number or a result"},
		{`confidence(lambda: "fast")`, "confidence: iteration 1: fn returned a string; it must return a number or a result"},
		{`confidence(lambda: float("nan"))`, "confidence: iteration 1: fn returned nan; every measurement must be a finite number"},
		{`confidence(lambda: fail("boom"))`, "confidence: iteration 1: fail: boom"},
		{seq + `confidence(seq(1, 2, None))`, "confidence: iteration 3: fn returned None"},
		{`confidence(lambda: tcp_rr(requets=1))`, "confidence: iteration 1: tcp_rr: unknown option requets"},
		// confidence(): the metric.
		{`confidence(lambda: tcp_rr(transactions=10), metric="thruput")`, `confidence: iteration 1: metric "thruput": the result fn returned has no such field; its numeric fields are bytes_received, bytes_sent, `},
		{`confidence(lambda: tcp_rr(transactions=10), metric="latency.p95")`, "latency.max, latency.mean, latency.min, latency.p50, latency.p90, latency.p99, latency.p999"},
		{`confidence(lambda: tcp_rr(transactions=10), metric="test")`, `confidence: iteration 1: metric "test" is a string, not a number; the numeric fields of the result fn returned are bytes_received`},
		{`confidence(lambda: {"throughput": 1, "local_cpu": None}, metric="local_cpu")`, `confidence: iteration 1: metric "local_cpu" is None in the dict fn returned: it was not measured (CPU figures need cpu_util=True)`},
		{`confidence(lambda: {"rate": 1})`, `confidence: iteration 1: metric "throughput": the dict fn returned has no such field; its numeric fields are rate`},
		{`confidence(lambda: 5, metric="latency.p99")`, `confidence: iteration 1: metric "latency.p99" was given but fn returned a plain number (5), which has no fields; return a result, or leave metric out`},
		// confidence(): a mean of zero has no width in percent.
		{`confidence(lambda: 0)`, "confidence: mean of value is 0; a width in percent is undefined"},
		{seq + `confidence(seq(-1, 1))`, "confidence: mean of value is 0; a width in percent is undefined"},

		// compare().
		{`compare(lambda: 1, lambda: 2, runs=1)`, "compare: runs must be at least 2 (each side needs two values to estimate its noise), got 1"},
		{`compare(lambda: 1, lambda: 2, runs=0)`, "compare: runs must be at least 2"},
		{`compare(lambda: 1, lambda: 2, runs=20000)`, "compare: runs must be at most 10000, got 20000"},
		{`compare(lambda: 1, lambda: 2, level=100)`, "compare: level must be between 0 and 100 percent (exclusive), got 100"},
		{`compare(lambda: 1, lambda: 2, level=0.0)`, "compare: level must be between 0 and 100 percent (exclusive), got 0"},
		{`compare(1, lambda: 2)`, "compare: a must be a function taking no arguments (such as lambda: tcp_rr(duration=10)), got int"},
		{`compare(lambda: 1, None)`, "compare: b must be a function taking no arguments (such as lambda: tcp_rr(duration=10)), got NoneType"},
		{`compare(lambda: 1, lambda x: 2)`, "compare: b must take no arguments, but lambda requires x"},
		{`compare(lambda: 1, lambda: "x")`, "compare: run 2 of 20 (b): b returned a string; it must return a number or a result"},
		{`compare(lambda: tcp_rr(transactions=10), lambda: 1, runs=2, metric="p99")`, `compare: run 1 of 4 (a): metric "p99": the result a returned has no such field; its numeric fields are`},
		{`compare(lambda: 0, lambda: 1, runs=2)`, "compare: mean of a is 0, so the difference in percent of it is undefined"},
		{`compare(lambda: 1)`, "compare: missing argument for b"},

		// stats.
		{`stats.mean([])`, "stats.mean: xs is empty; it needs at least 1 number"},
		{`stats.median(())`, "stats.median: xs is empty; it needs at least 1 number"},
		{`stats.percentile([], 50)`, "stats.percentile: xs is empty; it needs at least 1 number"},
		{`stats.stddev([])`, "stats.stddev: xs is empty; it needs at least 2 numbers"},
		{`stats.stddev([1])`, "stats.stddev: needs at least 2 values, got 1"},
		{`stats.ci([1])`, "stats.ci: needs at least 2 values, got 1"},
		{`stats.ci([])`, "stats.ci: xs is empty; it needs at least 2 numbers"},
		{`stats.mean([1, "2", 3])`, `stats.mean: xs[1] is "2" (string), not a number`},
		{`stats.median([1, None])`, "stats.median: xs[1] is None (NoneType), not a number"},
		{`stats.stddev([1, True])`, "stats.stddev: xs[1] is True (bool), not a number"},
		{`stats.mean([1, float("nan")])`, "stats.mean: xs[1] is nan; every value must be a finite number"},
		{`stats.ci([1, float("inf")])`, "stats.ci: xs[1] is +inf; every value must be a finite number"},
		{`stats.mean(5)`, "stats.mean: xs must be a list of numbers, got int"},
		{`stats.mean({"a": 1})`, "stats.mean: xs must be a list of numbers, got dict"},
		{`stats.percentile([1, 2], 101)`, "stats.percentile: q must be between 0 and 100 (a percentile, not a fraction), got 101"},
		{`stats.percentile([1, 2], -1)`, "stats.percentile: q must be between 0 and 100 (a percentile, not a fraction), got -1"},
		{`stats.percentile([1, 2], "p99")`, "stats.percentile: for parameter q: want a number, got string"},
		{`stats.percentile([1, 2])`, "stats.percentile: missing argument for q"},
		{`stats.ci([1, 2], 100)`, "stats.ci: level must be between 0 and 100 percent (exclusive), got 100"},
		{`stats.ci([1, 2], level=0)`, "stats.ci: level must be between 0 and 100 percent (exclusive), got 0"},
		{`stats.mode([1])`, "module has no .mode field or method"},
	}
	for _, c := range cases {
		th, _ := startest.NewThread(t)
		_, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "bad.star", c.code, starlib.Predeclared())
		if err == nil {
			t.Errorf("%s: no error, want %q", c.code, c.want)
			continue
		}
		msg := err.Error()
		if ee, ok := err.(*starlark.EvalError); ok {
			msg = ee.Msg
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s:\n got  %s\n want %s", c.code, msg, c.want)
		}
	}
}

// TestStatisticsDocumented checks that help() has a text for every
// statistics builtin and every member of the stats module.
func TestStatisticsDocumented(t *testing.T) {
	names := []string{"confidence", "compare", "stats"}
	for _, m := range statistics.Module.Members["stats"].(starlark.HasAttrs).AttrNames() {
		names = append(names, "stats."+m)
	}
	for _, n := range names {
		doc, ok := statistics.Doc[n]
		if !ok || !strings.HasPrefix(doc, n) {
			t.Errorf("%s: no documentation starting with its name", n)
		}
	}
}
