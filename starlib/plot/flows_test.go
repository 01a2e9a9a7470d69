package plot

// flowSamples are the throughputs of three flows of a TCP_STREAM test at
// t = 0.25, 0.5, 0.75 and 1 s; flows_builtins_test.go builds a result of
// them and checks that its per-flow timeseries chart is
// testdata/timeseries_flows.golden.
var flowSamples = [][]float64{
	{3000, 3100, 2900, 3050},
	{2000, 2500, 2600, 2400},
	{1000, 1200, 1500, 1800},
}

// flowsTimeseries is the figure timeseries(per_flow=True) makes of them
// when their result is drawn alone: one line per flow.
func flowsTimeseries() *Figure {
	f := &Figure{XLabel: "time (s)", YLabel: "throughput (10^6bits/s)", XZero: true}
	for i, vs := range flowSamples {
		s := Series{Name: "flow " + string(rune('0'+i))}
		for k, v := range vs {
			s.Points = append(s.Points, Point{X: 0.25 * float64(k+1), Y: v})
		}
		f.Series = append(f.Series, s)
	}
	return f
}
