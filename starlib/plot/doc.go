// Package plot is the module of netscript's pictures (Module: plot(),
// latency_plot(), timeseries(), bars() and chart()) and draws them: lines
// and points of a sweep, latency distributions from full histograms,
// throughput against time and bars with intervals, as SVG, PNG or PDF
// through gonum.org/v1/plot, and the same four kinds as plain text for a
// terminal or a mail. Every picture lays its text out in the Go font,
// which the binary carries (fonts.go), and an SVG embeds it: the layout
// is the same on every system, whatever fonts it has.
//
// The drawing (Figure, Bars, Write, Text; figure.go, latency.go, text.go)
// knows nothing of Starlark; SweepFigure, LatencyFigure,
// TimeseriesFigure and BarsFigure turn results into Figures and Bars, for
// the builtins and for the HTML report, which draws without them.
package plot
