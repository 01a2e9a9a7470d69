package plot

// index is the line help() gives each picture builtin.
var index = map[string]string{
	"plot":         "results drawn as lines and points into an SVG, PNG or PDF",
	"latency_plot": "latency distributions drawn from full histograms",
	"timeseries":   "interim samples drawn on one clock, as flent's rrul plot",
	"bars":         "confidence intervals and comparisons drawn as bars",
	"chart":        "any of those pictures as text: 72 columns, 20 lines",
	"heatmap":      "a matrix of values drawn as coloured cells, as a mesh's pairs",
}

// doc documents the picture builtins for help().
var doc = map[string]string{
	"plot": `plot(results, x=None, y="throughput", series=None, file, ...) -> str

Draws results as lines and points into file, in the format its extension
names (.svg, .png or .pdf), and returns the path. Further keywords: title,
xlabel, ylabel (texts), logx, logy (log axes, False), width and height
(pixels, 640 and 400). x, y and series are result fields as csv() names them
("config.request", "latency.p99"); one line per value of series; x=None
puts one result per position, named by brand. Results may be results,
dicts (r.to_dict()) or confidence() values, whose y is their mean with the
interval low..high as error bars. An unknown field lists the valid ones.
  rs = [tcp_rr(duration=1, burst=b) for b in [0, 4, 16]]
  plot(rs, x="config.burst", series="test", file="sweep.svg")`,
	"latency_plot": `latency_plot(results, file, kind="cdf", title=None) -> str

Draws the full latency histogram of each result (not its percentiles) as
one curve into file: kind "cdf" (fraction at or below), "ccdf" (fraction
slower, on a log scale, for the tail) or "histogram"; latency on a log
axis in microseconds, p50, p90, p99 and p99.9 marked. An aggregate()d
result is one curve. Returns the path; width and height (pixels) as for
plot().
  rs = [tcp_rr(duration=1), udp_rr(duration=1)]
  latency_plot(rs, file="latency.svg", kind="ccdf")`,
	"timeseries": `timeseries(results, file, y="throughput", per_flow=False, ...) -> str

Draws the interim samples of results (tests run with interval=) against one
time axis: each sample at its result's start plus its t, so the tests of
one parallel() call share a clock. One line per result, or per flow with
per_flow=True, from each flow's own samples (result.flows[i].interim).
Returns the path; width and height (pixels) as for plot(). A dict of lists
of results draws one panel per key, titled by it, one above the other on
one clock, as flent's rrul picture; y may then be a dict of a field per
panel (others draw throughput).
  bulk, rr = parallel([lambda: tcp_stream(duration=2, interval=0.5),
                       lambda: tcp_rr(duration=2, interval=0.5)])
  timeseries([rr], file="probe.svg")
  timeseries({"bulk": [bulk], "probe": [rr]}, file="both.svg")`,
	"bars": `bars(values, file, labels=None, title=None, width=640, height=400) -> str

Draws one bar per confidence(), stats.ci() or compare() value with its
interval as an error bar into file (means and differences do not mix),
labelled by labels (a list of strings) or else by the brand of each
value's results. Returns the path.
  cs = [confidence(lambda: tcp_rr(duration=1, burst=b)) for b in [0, 4]]
  bars(cs, labels=["burst 0", "burst 4"], file="ci.png")`,
	"heatmap": `heatmap(points, x, y, z, file, title=None, ...) -> str

Draws a matrix as coloured cells into file (.svg, .png or .pdf): each
point (a dict or a value with fields) puts its field z in the column of its
field x and the row of its field y; a z of None, or a cell no point names,
is grey. Columns and rows are in numeric order when every x (y) is a
number, else in the order first seen, the first row at the top; values are
written in the cells up to 400 of them. xlabel, ylabel (x and y), width
and height (pixels) as for plot(). Returns the path.
  pts = [{"client": c, "server": s, "rate": rates.get((c, s))}
         for c in range(4) for s in range(4) if c != s]
  heatmap(pts, x="server", y="client", z="rate", file="mesh.png")`,
	"chart": `chart(values, kind=None, x=None, y="throughput", series=None, ...) -> str

Draws the same pictures as text, at most 72 columns and 20 lines, for a
terminal or a plain-text mail: kind "plot" (as plot()), "cdf", "ccdf" or
"histogram" (as latency_plot()), "timeseries" or "bars"; None picks
"bars" for confidence(), stats.ci() and compare() values without x, else
"plot". Further keywords as for the builtin of that kind (title, xlabel,
ylabel, logx, logy, labels, per_flow). Plain ASCII unless unicode=True,
which draws with box characters.
  rs = [tcp_rr(duration=1, burst=b) for b in [0, 4, 16]]
  print(chart(rs, x="config.burst", y="throughput"))`,
}
