// Package plot draws netscript's pictures: lines and points of a sweep,
// latency distributions from full histograms, throughput against time and
// bars with intervals, as SVG, PNG or PDF through gonum.org/v1/plot, and
// the same four kinds as plain text for a terminal or a mail. It knows
// nothing of Starlark; starlib turns results into Figures and Bars.
package plot
