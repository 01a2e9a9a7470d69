package plot_test

import (
	"os"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/starlib/values"
)

// flowThroughputs are the samples of the golden per-flow chart
// (flows_test.go): three flows at t = 0.25, 0.5, 0.75 and 1 s.
var flowThroughputs = [][]float64{
	{3000, 3100, 2900, 3050},
	{2000, 2500, 2600, 2400},
	{1000, 1200, 1500, 1800},
}

// flowsResult is a TCP_STREAM result of three flows that keep their own
// interim samples, the test's being their sums.
func flowsResult() *result.Result {
	r := &result.Result{Test: "TCP_STREAM", Units: result.UnitsBits, Elapsed: 1, Start: 1000, Errors: map[string]uint64{},
		Config: result.Config{Duration: 1, Interval: 0.25, Flows: 3}}
	for i, vs := range flowThroughputs {
		f := &result.Flow{Index: i, Test: r.Test, Units: r.Units, Elapsed: 1, Errors: map[string]uint64{}}
		for k, v := range vs {
			f.Interim = append(f.Interim, result.Sample{T: 0.25 * float64(k+1), Throughput: v, Interval: 0.25})
			if i == 0 {
				r.Interim = append(r.Interim, result.Sample{T: 0.25 * float64(k+1), Interval: 0.25})
			}
			r.Interim[k].Throughput += v
			f.Throughput += v / 4
		}
		r.Throughput += f.Throughput
		r.Flows = append(r.Flows, f)
	}
	return r
}

// TestTimeseriesPerFlow: per_flow=True draws one line per flow from each
// flow's own samples (as results and as to_dict() gives them), and the
// text chart of the three flows is the golden one.
func TestTimeseriesPerFlow(t *testing.T) {
	g := pictureGlobals(t)
	g["flows3"] = values.NewResult(flowsResult())
	branded := flowsResult()
	branded.Brand = "bulk"
	g["bulk"] = values.NewResult(branded)
	alone := []string{"three flows", "time (s)", "flow 0", "flow 1", "flow 2"}
	for _, c := range []struct {
		name, code string
		series     int
		texts      []string
	}{
		{"results", `out = timeseries([flows3], per_flow = True, file = dir + "/flows.svg", title = "three flows")`, 3, alone},
		{"dicts", `out = timeseries([flows3.to_dict()], per_flow = True, file = dir + "/dicts.svg", title = "three flows")`, 3, alone},
		// Flows of several results are named after their result.
		{"two results", `out = timeseries([flows3, bulk], per_flow = True, file = dir + "/two.svg")`, 6,
			[]string{"TCP_STREAM #1 flow 0", "TCP_STREAM #1 flow 2", "bulk flow 0", "bulk flow 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := runPicture(t, g, c.code)
			if err != nil {
				t.Fatal(err)
			}
			path, _ := starlark.AsString(out)
			s := readSVG(t, path)
			if len(s.lines) != c.series {
				t.Errorf("%d series (colours %v), want one per flow, %d", len(s.lines), s.lines, c.series)
			}
			for _, n := range s.longest() {
				if n != 4 {
					t.Errorf("a line of %d points, want the 4 samples of a flow", n)
				}
			}
			all := "\n" + strings.Join(s.texts, "\n") + "\n"
			for _, w := range c.texts {
				if !strings.Contains(all, "\n"+w+"\n") {
					t.Errorf("no text %q among %q", w, s.texts)
				}
			}
		})
	}

	out, err := runPicture(t, g, `out = chart([flows3], kind = "timeseries", per_flow = True)`)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/timeseries_flows.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := starlark.AsString(out); got+"\n" != string(want) {
		t.Errorf("the chart differs from testdata/timeseries_flows.golden:\n%s", got)
	}
	// Without per_flow: one line, the test's own samples.
	out, err = runPicture(t, g, `out = timeseries([flows3], file = dir + "/top.svg")`)
	if err != nil {
		t.Fatal(err)
	}
	path, _ := starlark.AsString(out)
	if s := readSVG(t, path); len(s.lines) != 1 {
		t.Errorf("without per_flow: %d series", len(s.lines))
	}
}

// TestTimeseriesPerFlowNone: per_flow=True of a result whose flows keep no
// samples of their own (a record of the release before them) while the
// result has some is one clear line, as is a dict whose flows lack them.
func TestTimeseriesPerFlowNone(t *testing.T) {
	g := pictureGlobals(t)
	old := flowsResult()
	for _, f := range old.Flows {
		f.Interim = nil
	}
	g["old"] = values.NewResult(old)
	for _, code := range []string{
		`timeseries([old], per_flow = True, file = dir + "/x.svg")`,
		`chart([old], kind = "timeseries", per_flow = True)`,
		`timeseries([dict(old.to_dict(), flows = [{"index": 0}])], per_flow = True, file = dir + "/x.svg")`,
	} {
		_, err := runPicture(t, g, code)
		if err == nil {
			t.Fatalf("%s: no error", code)
		}
		msg := err.Error()
		if ee, ok := err.(*starlark.EvalError); ok {
			msg = ee.Msg
		}
		if !strings.Contains(msg, "per_flow=True: the flows of results[0] (TCP_STREAM) keep no interim samples") || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q", code, msg)
		}
	}
}
