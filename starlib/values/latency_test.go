package values_test

import (
	"math"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/hist"
	"netscript/engine/result"
	"netscript/internal/startest"
	"netscript/starlib"
	"netscript/starlib/values"
)

// TestLatencyBadInput: a percentile out of range or not a number, and a
// latency without its histogram, are one clear line each.
func TestLatencyBadInput(t *testing.T) {
	cases := []struct{ code, want string }{
		{`r.latency.percentile(101)`, "latency.percentile: q must be between 0 and 100 (a percentile, not a fraction), got 101"},
		{`r.latency.percentile(-0.5)`, "percentile: q must be between 0 and 100 (a percentile, not a fraction), got -0.5"},
		{`r.latency.percentile(float("nan"))`, "percentile: q must be between 0 and 100"},
		{`r.latency.percentile("99")`, `percentile: q must be a number between 0 and 100, got string "99"`},
		{`r.latency.percentile()`, "percentile: missing argument for q"},
		{`r.latency.percentiles(99)`, "percentiles: qs must be a list of percentiles such as [50, 99, 99.9], got int"},
		{`r.latency.percentiles([50, 101])`, "latency.percentiles: qs[1]: q must be between 0 and 100"},
		{`r.latency.percentiles([None])`, "percentiles: qs[0]: q must be a number between 0 and 100, got NoneType None"},
		{`bare.percentile(50)`, "latency.percentile: this latency has no histogram (a result read from a record written before records kept them)"},
	}
	th, _ := startest.NewThread(t)
	globals, err := starlark.ExecFileOptions(starlib.FileOptions(), th, "setup.star", `r = tcp_rr(transactions=50)`, starlib.Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	r := globals["r"].(*values.Record)
	bare := values.NewLatency(r.Value().(*result.Result).Latency, nil)
	for _, c := range cases {
		env := starlark.StringDict{"r": r, "bare": bare}
		_, err := starlark.EvalOptions(starlib.FileOptions(), th, "bad.star", c.code, env)
		if err == nil {
			t.Errorf("%s: no error, want %q", c.code, c.want)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s:\n got  %s\n want %s", c.code, msg, c.want)
		}
	}
}

// TestPercentileOfKnownSamples: r.latency.percentile(q) of a result whose
// transactions took 1, 2, ..., 1000 us is the nearest-rank sample (q·10
// us, rounded up) within the histogram's stated 1/256.
func TestPercentileOfKnownSamples(t *testing.T) {
	h := hist.New()
	for i := 1; i <= 1000; i++ {
		h.Record(int64(i) * 1000)
	}
	r := values.NewResult(&result.Result{Test: "TCP_RR", Latency: result.LatencyOf(h), Hist: h})
	qs := []float64{0.05, 0.1, 7, 14, 28, 33.3, 50, 68, 99, 99.95, 100}
	v, err := starlark.EvalOptions(starlib.FileOptions(), &starlark.Thread{}, "p.star",
		"r.latency.percentiles(qs)", starlark.StringDict{"r": r, "qs": floats(qs)})
	if err != nil {
		t.Fatal(err)
	}
	got := v.(*starlark.List)
	for i, q := range qs {
		want := math.Max(1, math.Ceil(q*10-1e-9)) // the rank, in us
		x, _ := starlark.AsFloat(got.Index(i))
		if math.Abs(x-want) > want/256 {
			t.Errorf("percentiles: %g gives %g us, nearest rank %g us", q, x, want)
		}
		// percentile(q) alone takes its own path through the histogram.
		one, err := starlark.EvalOptions(starlib.FileOptions(), &starlark.Thread{}, "p.star",
			"r.latency.percentile(q)", starlark.StringDict{"r": r, "q": starlark.Float(q)})
		if err != nil {
			t.Fatal(err)
		}
		if y, _ := starlark.AsFloat(one); math.Abs(y-want) > want/256 || y != x {
			t.Errorf("percentile(%g) = %g us, percentiles gave %g, nearest rank %g us", q, y, x, want)
		}
	}
}

// floats is a list of xs.
func floats(xs []float64) *starlark.List {
	var l []starlark.Value
	for _, x := range xs {
		l = append(l, starlark.Float(x))
	}
	return starlark.NewList(l)
}
