// Package report turns a run record into pictures: the figures that fit
// its results (sweeps, latency distributions, time series), as text
// charts for `netscript show --chart` and as one self-contained HTML file
// for `netscript report`.
package report
