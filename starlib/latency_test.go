package starlib

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/result"
)

// TestLatencyBadInput: a percentile out of range or not a number, and a
// latency without its histogram, are one clear line each.
func TestLatencyBadInput(t *testing.T) {
	cases := []struct{ code, want string }{
		{`r.latency.percentile(101)`, "percentile: q must be between 0 and 100 (a percentile, not a fraction), got 101"},
		{`r.latency.percentile(-0.5)`, "percentile: q must be between 0 and 100 (a percentile, not a fraction), got -0.5"},
		{`r.latency.percentile(float("nan"))`, "percentile: q must be between 0 and 100"},
		{`r.latency.percentile("99")`, `percentile: q must be a number between 0 and 100, got string "99"`},
		{`r.latency.percentile()`, "percentile: missing argument for q"},
		{`r.latency.percentiles(99)`, "percentiles: qs must be a list of percentiles such as [50, 99, 99.9], got int"},
		{`r.latency.percentiles([50, 101])`, "percentiles: qs[1]: q must be between 0 and 100"},
		{`r.latency.percentiles([None])`, "percentiles: qs[0]: q must be a number between 0 and 100, got NoneType None"},
		{`bare.percentile(50)`, "percentile: this latency has no histogram (a result read from a record written before records kept them)"},
	}
	th, _ := newTestThread(t)
	globals, err := starlark.ExecFileOptions(FileOptions(), th, "setup.star", `r = tcp_rr(transactions=50)`, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	r := globals["r"].(*Record)
	bare := NewLatency(r.Value().(*result.Result).Latency, nil)
	for _, c := range cases {
		env := starlark.StringDict{"r": r, "bare": bare}
		_, err := starlark.EvalOptions(FileOptions(), th, "bad.star", c.code, env)
		if err == nil {
			t.Errorf("%s: no error, want %q", c.code, c.want)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s:\n got  %s\n want %s", c.code, msg, c.want)
		}
	}
}
