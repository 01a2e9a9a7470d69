package plot

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/starlib/values"
)

// PlotSpec says what plot() and chart() draw: which fields of the results
// go on each axis and which one splits them into lines.
type PlotSpec struct {
	X, Y, Series          string // result fields as csv() names them; X and Series may be ""
	Title, XLabel, YLabel string
	LogX, LogY            bool
}

// SweepFigure lays results (results, dicts or confidence() values, not
// mixed) out as lines and points: y against x, one line per value of
// series. A confidence value's y is its mean with low and high as error
// bars.
func SweepFigure(rows []starlark.Value, s PlotSpec) (*Figure, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("no results to plot")
	}
	kind := ""
	for i, r := range rows {
		k := plotKind(r)
		switch {
		case k == "comparison":
			return nil, fmt.Errorf("results[%d] is a comparison; bars() draws compare() values", i)
		case kind == "":
			kind = k
		case (kind == "confidence") != (k == "confidence"):
			return nil, fmt.Errorf("results mix confidence values and results (results[%d] is a %s); plot one kind", i, r.Type())
		}
	}
	if s.Y == "" {
		// A confidence value's figure is its mean, whatever metric it
		// summarises; a result's is its throughput.
		s.Y = "throughput"
		if kind == "confidence" {
			s.Y = "mean"
		}
	}
	units, err := sameUnits(rows, s.Y)
	if err != nil {
		return nil, err
	}
	f := &Figure{Title: s.Title, XLabel: s.XLabel, YLabel: s.YLabel, LogX: s.LogX, LogY: s.LogY}
	if f.XLabel == "" {
		f.XLabel = withUnits(s.X, values.FieldUnit(s.X))
	}
	if f.YLabel == "" {
		if units == "" {
			units = values.FieldUnit(s.Y)
		}
		f.YLabel = withUnits(s.Y, units)
		if s.Y == "mean" {
			metric, _ := plotField(rows[0], "metric")
			f.YLabel = withUnits(plainString(metric), units)
		}
	}
	var order []string
	bySeries := map[string]*Series{}
	names := map[string]int{}
	numericX := true
	xs := make([]starlark.Value, len(rows))
	for i, r := range rows {
		if s.X == "" {
			xs[i] = starlark.String(rowName(r, i))
			numericX = false
			continue
		}
		v, err := plotField(r, s.X)
		if err != nil {
			return nil, err
		}
		xs[i] = v
		if _, ok := values.Number(v); !ok && v != starlark.None {
			numericX = false
		}
	}
	for i, r := range rows {
		var x float64
		if numericX {
			n, ok := values.Number(xs[i])
			if !ok {
				continue // not measured
			}
			x = n
		} else {
			name := plainString(xs[i])
			idx, ok := names[name]
			if !ok {
				idx = len(f.XNames)
				names[name] = idx
				f.XNames = append(f.XNames, name)
			}
			x = float64(idx)
		}
		pt, ok, err := plotPoint(r, s.Y, x)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		key := ""
		if s.Series != "" {
			v, err := plotField(r, s.Series)
			if err != nil {
				return nil, err
			}
			key = plainString(v)
		}
		sr, ok := bySeries[key]
		if !ok {
			sr = &Series{Name: key}
			bySeries[key] = sr
			order = append(order, key)
		}
		sr.Points = append(sr.Points, pt)
	}
	for _, k := range order {
		sr := bySeries[k]
		if numericX {
			sort.SliceStable(sr.Points, func(a, b int) bool { return sr.Points[a].X < sr.Points[b].X })
		}
		f.Series = append(f.Series, *sr)
	}
	if len(f.Series) == 0 {
		return nil, fmt.Errorf("no result has a value of %s", s.Y)
	}
	if f.LogX && f.XNames != nil {
		return nil, fmt.Errorf("logx needs numbers on the x axis; %s is %s", s.X, xs[0].Type())
	}
	return f, nil
}

// plotPoint reads y of row at x; false when it was not measured (None).
func plotPoint(row starlark.Value, y string, x float64) (Point, bool, error) {
	if plotKind(row) == "confidence" {
		metric, _ := plotField(row, "metric")
		if y == "mean" || y == plainString(metric) {
			var n [3]float64
			for i, name := range []string{"mean", "low", "high"} {
				v, err := values.Field(row, name)
				if err != nil {
					return Point{}, false, err
				}
				n[i], _ = values.Number(v)
			}
			return Point{X: x, Y: n[0], Low: n[1], High: n[2], Err: true}, true, nil
		}
	}
	v, err := plotField(row, y)
	if err != nil {
		return Point{}, false, err
	}
	if v == starlark.None {
		return Point{}, false, nil
	}
	n, ok := values.Number(v)
	if !ok {
		return Point{}, false, fmt.Errorf("field %s is a %s (%s), not a number to plot", y, v.Type(), v)
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return Point{}, false, nil
	}
	return Point{X: x, Y: n}, true, nil
}

// plotField reads a field as csv() does; a confidence value's own fields
// come first, then those of its first result (config.request of the
// results it summarises).
func plotField(row starlark.Value, path string) (starlark.Value, error) {
	v, err := values.Field(row, path)
	if err == nil {
		return v, nil
	}
	if plotKind(row) == "confidence" {
		if rs, rerr := values.Field(row, "results"); rerr == nil {
			if l, ok := rs.(*starlark.List); ok && l.Len() > 0 {
				if v, err2 := values.Field(l.Index(0), path); err2 == nil {
					return v, nil
				}
			}
		}
	}
	// Fields of a result that were not measured (latency.p99 of a stream)
	// are None, as csv() leaves them empty.
	if head, _, ok := strings.Cut(path, "."); ok {
		if p, perr := values.Field(row, head); perr == nil && p == starlark.None {
			return starlark.None, nil
		}
	}
	return nil, err
}

// plotKind names what a value to plot is: "confidence", "comparison",
// "result", "dict" or its type.
func plotKind(v starlark.Value) string {
	return v.Type()
}

// sameUnits returns the units of the rows' y figure when y is throughput
// (or a confidence value's mean), and refuses rows whose units differ: one
// axis shows one.
func sameUnits(rows []starlark.Value, y string) (string, error) {
	if y != "throughput" && y != "mean" {
		return "", nil
	}
	units, first := "", -1
	for i, r := range rows {
		v, err := values.Field(r, "units")
		if err != nil {
			continue
		}
		u, _ := starlark.AsString(v)
		if u == "" {
			continue
		}
		if first >= 0 && u != units {
			return "", fmt.Errorf("results mix units: results[%d] (%s) is in %s, results[%d] (%s) in %s; one axis shows one, so plot them apart",
				first, testName(rows[first]), units, i, testName(r), u)
		}
		if first < 0 {
			units, first = u, i
		}
	}
	return units, nil
}

// testName is the test of a result ("tcp_rr"), or its type.
func testName(v starlark.Value) string {
	if t, err := plotField(v, "test"); err == nil {
		if s, ok := starlark.AsString(t); ok {
			return s
		}
	}
	return v.Type()
}

// rowName names one value in a legend or on an axis: its brand, else its
// test and place in the list.
func rowName(v starlark.Value, i int) string {
	if b, err := plotField(v, "brand"); err == nil {
		if s, ok := starlark.AsString(b); ok && s != "" {
			return s
		}
	}
	return fmt.Sprintf("%s #%d", testName(v), i+1)
}

func withUnits(field, units string) string {
	if units == "" {
		return field
	}
	return field + " (" + units + ")"
}

// plainString is a field's value as a label: a string without quotes.
func plainString(v starlark.Value) string {
	if s, ok := starlark.AsString(v); ok {
		return s
	}
	return v.String()
}

// resultOf returns the engine result behind a result value, or nil for
// anything else (a dict, a confidence value).
func resultOf(v starlark.Value) *result.Result {
	if r, ok := v.(*values.Record); ok {
		if res, ok := r.Value().(*result.Result); ok {
			return res
		}
	}
	return nil
}
