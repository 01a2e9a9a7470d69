package starlib

// plotDoc documents the picture builtins for help().
var plotDoc = map[string]string{
	"plot": `plot(results, x=None, y="throughput", series=None, file, title=None,
     xlabel=None, ylabel=None, logx=False, logy=False, width=640, height=400) -> str

Draws results as lines and points into file, in the format its extension
names (.svg, .png or .pdf; width and height in pixels), and returns the
path. x, y and series are result fields as csv() names them
("config.request", "latency.p99"); one line per value of series; x=None
puts one result per position, named by brand. Results may be results,
dicts (r.to_dict()) or confidence() values, whose y is the mean with the
interval low..high as error bars. An unknown field lists the valid ones.
  plot(results, x="config.burst", y="throughput", series="test", file="sweep.svg")`,
	"latency_plot": `latency_plot(results, file, kind="cdf", title=None, width=640, height=400) -> str

Draws the full latency histogram of each result (not its percentiles) as
one curve into file: kind "cdf" (fraction at or below), "ccdf" (fraction
slower, log scale, for the tail) or "histogram"; latency on a log axis in
microseconds, p50, p90, p99 and p99.9 marked. An aggregate()d result is one
curve. Returns the path.
  latency_plot([tcp_rr(), udp_rr()], file="latency.svg", kind="ccdf")`,
	"timeseries": `timeseries(results, file, y="throughput", per_flow=False, title=None,
           width=640, height=400) -> str

Draws the interim samples of results (tests run with interval=) against one
time axis: each sample at its result's start plus its t, so the tests of one
parallel() call share a clock. One line per result, or per flow with
per_flow=True. Returns the path.
  bulk, rr = parallel([lambda: tcp_stream(interval=0.5), lambda: tcp_rr(interval=0.5)])
  timeseries([bulk], file="bulk.svg")`,
	"bars": `bars(values, file, labels=None, title=None, width=640, height=400) -> str

Draws one bar per confidence(), stats.ci() or compare() value with its
interval as an error bar into file (means and differences do not mix),
labelled by labels (a list of strings) or else by the brand of each
value's results. Returns the path.
  bars([confidence(lambda: tcp_rr(brand=b)) for b in ["a", "b"]], file="ci.png")`,
	"chart": `chart(values, kind=None, x=None, y="throughput", series=None, title=None,
      xlabel=None, ylabel=None, logx=False, logy=False, labels=None,
      per_flow=False, unicode=False) -> str

Draws the same pictures as text, at most 72 columns and 20 lines, for a
terminal or a plain-text mail: kind "plot" (as plot()), "cdf", "ccdf" or
"histogram" (as latency_plot()), "timeseries" or "bars"; None picks "bars"
for confidence(), stats.ci() and compare() values without x, else "plot". Plain ASCII
unless unicode=True, which draws with block and box characters.
  print(chart(results, x="config.burst", y="throughput"))`,
}
