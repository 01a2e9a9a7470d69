package plot

import (
	"fmt"
	"math"

	"go.starlark.net/starlark"

	"netscript/starlib/values"
)

// LatencyFigure lays the full latency histogram of every result out as one
// curve of the given kind (CDF, CCDF or Histogram) against
// latency on a log axis, with the percentiles marked. An aggregate()d
// result is one curve.
func LatencyFigure(rows []starlark.Value, kind, title string) (*Figure, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("no results to plot")
	}
	f := &Figure{Title: title, XLabel: "latency (µs)", LogX: true, Step: true}
	switch kind {
	case CDF:
		f.YLabel = "fraction at or below"
	case CCDF:
		f.YLabel, f.LogY = "fraction slower", true
	case Histogram:
		f.YLabel = "fraction of transactions"
	default:
		return nil, fmt.Errorf("kind %q: use \"cdf\", \"ccdf\" or \"histogram\"", kind)
	}
	seen := map[string]int{}
	for i, r := range rows {
		res := resultOf(r)
		switch {
		case res == nil:
			return nil, fmt.Errorf("results[%d] is a %s, which carries no latency histogram; pass the results themselves", i, r.Type())
		case res.Latency == nil:
			return nil, fmt.Errorf("results[%d] is a %s result, which measures no latency; latency_plot takes request/response tests", i, res.Test)
		case res.Hist == nil:
			return nil, fmt.Errorf("results[%d] (%s) has no latency histogram, only its percentiles (a result read back from a record that did not keep histograms)", i, res.Test)
		}
		name := rowName(r, i)
		if n := seen[name]; n > 0 {
			name = fmt.Sprintf("%s (%d)", name, n+1)
		}
		seen[rowName(r, i)]++
		s, err := LatencySeries(name, res.Hist, kind)
		if err != nil {
			return nil, fmt.Errorf("results[%d]: %w", i, err)
		}
		f.Series = append(f.Series, s)
	}
	return f, nil
}

// TimeseriesFigure lays the interim samples of results out against one
// time axis: each sample at its result's start plus its t, so the tests of
// a parallel() call share a clock. One line per result, or per flow.
func TimeseriesFigure(rows []starlark.Value, y string, perFlow bool, title string) (*Figure, error) {
	return TimeseriesFigureFrom(rows, y, perFlow, title, math.Inf(1))
}

// TimeseriesFigureFrom is TimeseriesFigure with time counted from t0
// (seconds since the Unix epoch, as a result's start) when t0 is earlier
// than every result's start, so that several pictures of one run share a
// clock.
func TimeseriesFigureFrom(rows []starlark.Value, y string, perFlow bool, title string, t0 float64) (*Figure, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("no results to plot")
	}
	if y == "" {
		y = "throughput"
	}
	units, err := sameUnits(rows, "throughput")
	if err != nil && y == "throughput" {
		return nil, err
	}
	starts := make([]float64, len(rows))
	for i, r := range rows {
		v, err := plotField(r, "start")
		if err != nil {
			return nil, fmt.Errorf("results[%d]: %w", i, err)
		}
		starts[i], _ = values.Number(v)
		t0 = math.Min(t0, starts[i])
	}
	f := &Figure{Title: title, XLabel: "time (s)", XZero: true}
	if y == "throughput" {
		f.YLabel = withUnits(y, units)
	} else {
		f.YLabel = y
	}
	samples := 0
	for i, r := range rows {
		lines, names, err := timeseriesLines(r, i, perFlow, len(rows) == 1)
		if err != nil {
			return nil, err
		}
		for k, line := range lines {
			iv, err := values.Field(line, "interim")
			if err != nil {
				return nil, fmt.Errorf("results[%d]: %w", i, err)
			}
			l, _ := iv.(*starlark.List)
			s := Series{Name: names[k]}
			for j := 0; l != nil && j < l.Len(); j++ {
				t, err := values.Field(l.Index(j), "t")
				if err != nil {
					return nil, err
				}
				tv, _ := values.Number(t)
				pt, ok, err := plotPoint(l.Index(j), y, starts[i]-t0+tv)
				if err != nil {
					return nil, fmt.Errorf("interim samples: %w", err)
				}
				if ok {
					s.Points = append(s.Points, pt)
				}
			}
			samples += len(s.Points)
			f.Series = append(f.Series, s)
		}
	}
	if samples == 0 {
		return nil, fmt.Errorf("the results have no interim samples; run the tests with interval=, such as interval=0.5")
	}
	return f, nil
}

// BarsFigure lays confidence() or compare() values (not mixed) out as one
// bar each with its interval, labelled by labels, else by the brand of
// their results.
func BarsFigure(vals []starlark.Value, labels []string, title string) (*Bars, error) {
	if len(vals) == 0 {
		return nil, fmt.Errorf("no values to plot")
	}
	if labels != nil && len(labels) != len(vals) {
		return nil, fmt.Errorf("%d labels for %d values", len(labels), len(vals))
	}
	b := &Bars{Title: title}
	// confidence() and stats.ci() values are means; compare() values are
	// differences.
	isMean := func(k string) bool { return k == "confidence" || k == "interval" }
	kind := vals[0].Type()
	for i, v := range vals {
		k := v.Type()
		if !isMean(k) && k != "comparison" {
			return nil, fmt.Errorf("values[%d] is a %s; bars takes confidence(), stats.ci() or compare() values (plot() draws results)", i, k)
		}
		if isMean(k) != isMean(kind) {
			return nil, fmt.Errorf("values mix %s and %s values (values[%d]); a bar of a mean and one of a difference do not share an axis", kind, k, i)
		}
		valueField := "mean"
		if k == "comparison" {
			valueField = "delta"
		}
		var n [3]float64
		for j, name := range []string{valueField, "low", "high"} {
			x, err := values.Field(v, name)
			if err != nil {
				return nil, err
			}
			n[j], _ = values.Number(x)
		}
		bar := Bar{Value: n[0], Low: n[1], High: n[2]}
		switch {
		case labels != nil:
			bar.Label = labels[i]
		case k == "comparison":
			bar.Label = comparisonName(v, i)
		default:
			bar.Label = rowName(v, i)
		}
		b.Bars = append(b.Bars, bar)
		if b.YLabel == "" {
			m, u := "", ""
			if metric, err := values.Field(v, "metric"); err == nil {
				m = plainString(metric)
			}
			if units, err := values.Field(v, "units"); err == nil {
				u, _ = starlark.AsString(units)
			}
			if m == "" {
				continue // a stats.ci() interval: the next value may name it
			}
			if k == "comparison" {
				m = "change in " + m
			}
			b.YLabel = withUnits(m, u)
		}
	}
	return b, nil
}

// comparisonName is "A vs B" from the brands of a comparison's runs.
func comparisonName(v starlark.Value, i int) string {
	brand := func(field string) string {
		if rs, err := values.Field(v, field); err == nil {
			if l, ok := rs.(*starlark.List); ok && l.Len() > 0 {
				if b, err := values.Field(l.Index(0), "brand"); err == nil {
					if s, ok := starlark.AsString(b); ok {
						return s
					}
				}
			}
		}
		return ""
	}
	a, b := brand("results_a"), brand("results_b")
	if a == "" && b == "" {
		return fmt.Sprintf("comparison #%d", i+1)
	}
	return a + " vs " + b
}
