package plot

import (
	"fmt"

	"go.starlark.net/starlark"
	"gonum.org/v1/plot/vg"

	"netscript/session"
	"netscript/starlib/module"
	"netscript/starlib/thread"
	"netscript/starlib/values"
)

// Module is plot(), latency_plot(), timeseries(), bars(), heatmap() and chart(),
// with their help.
var Module = &module.Module{
	Name: "plot",
	Members: starlark.StringDict{
		"plot":         starlark.NewBuiltin("plot", plotBuiltin),
		"latency_plot": starlark.NewBuiltin("latency_plot", latencyPlotBuiltin),
		"timeseries":   starlark.NewBuiltin("timeseries", timeseriesBuiltin),
		"bars":         starlark.NewBuiltin("bars", barsBuiltin),
		"chart":        starlark.NewBuiltin("chart", chartBuiltin),
		"heatmap":      starlark.NewBuiltin("heatmap", heatmapBuiltin),
	},
	Help:  doc,
	Index: index,
	Keywords: map[string][]string{
		"plot":         {"results", "x", "y", "series", "file", "title", "xlabel", "ylabel", "logx", "logy", "width", "height"},
		"latency_plot": {"results", "file", "kind", "title", "width", "height"},
		"timeseries":   {"results", "file", "y", "per_flow", "title", "width", "height"},
		"bars":         {"values", "file", "labels", "title", "width", "height"},
		"heatmap":      {"points", "x", "y", "z", "file", "title", "xlabel", "ylabel", "width", "height"},
		"chart":        {"values", "kind", "x", "y", "series", "title", "xlabel", "ylabel", "logx", "logy", "labels", "per_flow", "unicode"},
	},
}

// Picture size in pixels when width= and height= are left out.
const (
	plotWidthPx  = 640
	plotHeightPx = 400
)

// pictureArgs are the arguments every picture builtin shares.
type pictureArgs struct {
	file          string
	width, height int
}

// draw opens the file first (a wrong extension or an unwritable path is
// reported before anything is drawn), then builds the figure and writes it;
// a figure that cannot be built leaves the file already there as it was.
func (a pictureArgs) draw(th *starlark.Thread, b *starlark.Builtin, build func() (Drawable, error)) (starlark.Value, error) {
	if a.file == "" {
		return nil, fmt.Errorf("%s: file is required, such as file=\"sweep.svg\"", b.Name())
	}
	if a.width <= 0 || a.height <= 0 {
		return nil, fmt.Errorf("%s: width and height are pixels above 0, got %d x %d", b.Name(), a.width, a.height)
	}
	var perms *session.Permissions
	maxPoints := 0
	if sess, err := thread.Session(th); err == nil {
		perms, maxPoints = sess.Perms, sess.Limits.PicturePoints
		if max := sess.Limits.PicturePixels; max > 0 && int64(a.width)*int64(a.height) > max {
			return nil, fmt.Errorf("%s: %w", b.Name(), &session.LimitError{
				What: fmt.Sprintf("a picture of %d x %d pixels is larger than %d pixels", a.width, a.height, max), Flag: "--max-picture-pixels N"})
		}
	}
	f, format, err := Create(perms, a.file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	fail := func(err error) (starlark.Value, error) {
		f.Abort() // the picture already at a.file stays
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	g, err := build()
	if err != nil {
		return fail(err)
	}
	if n := points(g); maxPoints > 0 && n > maxPoints {
		return fail(&session.LimitError{What: fmt.Sprintf("a picture of %d points is more than %d", n, maxPoints), Flag: "--max-picture-points N"})
	}
	// gonum draws PNG at 96 dots per inch.
	px := func(n int) vg.Length { return vg.Length(n) * vg.Inch / 96 }
	if err := Write(g, f, format, px(a.width), px(a.height)); err != nil {
		return fail(err)
	}
	if err := f.Commit(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.String(a.file), nil
}

// plotBuiltin: plot(results, x=None, y="throughput", series=None, file, ...).
func plotBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rv, xv, sv starlark.Value = nil, starlark.None, starlark.None
	s := PlotSpec{}
	p := pictureArgs{width: plotWidthPx, height: plotHeightPx}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "results", &rv, "x?", &xv, "y?", &s.Y, "series?", &sv,
		"file", &p.file, "title?", &s.Title, "xlabel?", &s.XLabel, "ylabel?", &s.YLabel, "logx?", &s.LogX, "logy?", &s.LogY,
		"width?", &p.width, "height?", &p.height); err != nil {
		return nil, err
	}
	var err error
	if s.X, s.Series, err = fieldNames(b, xv, sv); err != nil {
		return nil, err
	}
	rows, err := plotRows(b, rv)
	if err != nil {
		return nil, err
	}
	return p.draw(th, b, func() (Drawable, error) { return SweepFigure(rows, s) })
}

// latencyPlotBuiltin: latency_plot(results, file, kind="cdf", title=None).
func latencyPlotBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rv starlark.Value
	kind, title := CDF, ""
	p := pictureArgs{width: plotWidthPx, height: plotHeightPx}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "results", &rv, "file", &p.file, "kind?", &kind, "title?", &title,
		"width?", &p.width, "height?", &p.height); err != nil {
		return nil, err
	}
	rows, err := plotRows(b, rv)
	if err != nil {
		return nil, err
	}
	return p.draw(th, b, func() (Drawable, error) { return LatencyFigure(rows, kind, title) })
}

// timeseriesBuiltin: timeseries(results, file, y="throughput", per_flow=False, title=None).
func timeseriesBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rv starlark.Value
	var yv starlark.Value = starlark.None
	title, perFlow := "", false
	p := pictureArgs{width: plotWidthPx, height: plotHeightPx}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "results", &rv, "file", &p.file, "y?", &yv, "per_flow?", &perFlow,
		"title?", &title, "width?", &p.width, "height?", &p.height); err != nil {
		return nil, err
	}
	if titles, lists, ok := panelsOf(rv); ok {
		return p.draw(th, b, func() (Drawable, error) { return StackFigure(b, titles, lists, yv, perFlow) })
	}
	y, err := panelY(yv, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if _, ok := yv.(*starlark.Dict); ok {
		return nil, fmt.Errorf("%s: y is a dict of one field per panel, for results given as a dict of panels", b.Name())
	}
	rows, err := plotRows(b, rv)
	if err != nil {
		return nil, err
	}
	return p.draw(th, b, func() (Drawable, error) { return TimeseriesFigure(rows, y, perFlow, title) })
}

// barsBuiltin: bars(values, file, labels=None, title=None).
func barsBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rv, lv starlark.Value = nil, starlark.None
	title := ""
	p := pictureArgs{width: plotWidthPx, height: plotHeightPx}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "values", &rv, "file", &p.file, "labels?", &lv, "title?", &title,
		"width?", &p.width, "height?", &p.height); err != nil {
		return nil, err
	}
	vals, err := plotRows(b, rv)
	if err != nil {
		return nil, err
	}
	labels, err := plotLabels(b, lv)
	if err != nil {
		return nil, err
	}
	return p.draw(th, b, func() (Drawable, error) { return BarsFigure(vals, labels, title) })
}

// chartBuiltin: chart(values, kind=None, ...) returns the text chart.
func chartBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rv, lv, kv, xv, sv starlark.Value = nil, starlark.None, starlark.None, starlark.None, starlark.None
	s := PlotSpec{}
	perFlow, unicode := false, false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "values", &rv, "kind?", &kv, "x?", &xv, "y?", &s.Y, "series?", &sv,
		"title?", &s.Title, "xlabel?", &s.XLabel, "ylabel?", &s.YLabel, "logx?", &s.LogX, "logy?", &s.LogY,
		"labels?", &lv, "per_flow?", &perFlow, "unicode?", &unicode); err != nil {
		return nil, err
	}
	var err error
	if s.X, s.Series, err = fieldNames(b, xv, sv); err != nil {
		return nil, err
	}
	kind, ok := starlark.AsString(kv)
	if !ok && kv != starlark.None {
		return nil, fmt.Errorf("%s: kind must be a string such as \"cdf\", got %s", b.Name(), kv.Type())
	}
	rows, err := plotRows(b, rv)
	if err != nil {
		return nil, err
	}
	labels, err := plotLabels(b, lv)
	if err != nil {
		return nil, err
	}
	if kind == "" {
		kind = "plot"
		if s.X == "" && allStatistics(rows) {
			kind = "bars"
		}
	}
	text, err := Chart(rows, kind, s, labels, perFlow, unicode)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.String(text), nil
}

// Chart lays values out as a text chart of one kind: "plot" (lines and
// points as plot() draws them), "cdf", "ccdf" or "histogram" (as
// latency_plot()), "timeseries" or "bars".
func Chart(rows []starlark.Value, kind string, s PlotSpec, labels []string, perFlow, unicode bool) (string, error) {
	var err error
	var f *Figure
	switch kind {
	case "plot":
		f, err = SweepFigure(rows, s)
	case CDF, CCDF, Histogram:
		f, err = LatencyFigure(rows, kind, s.Title)
	case "timeseries":
		f, err = TimeseriesFigure(rows, s.Y, perFlow, s.Title)
	case "bars":
		var bs *Bars
		if bs, err = BarsFigure(rows, labels, s.Title); err != nil {
			return "", err
		}
		return bs.Text(unicode)
	default:
		return "", fmt.Errorf("kind %q: use \"plot\", \"cdf\", \"ccdf\", \"histogram\", \"timeseries\" or \"bars\"", kind)
	}
	if err != nil {
		return "", err
	}
	return f.Text(unicode)
}

// allStatistics reports whether every value is a confidence(), stats.ci()
// or compare() value.
func allStatistics(rows []starlark.Value) bool {
	for _, r := range rows {
		if t := r.Type(); t != "confidence" && t != "comparison" && t != "interval" {
			return false
		}
	}
	return true
}

// plotRows reads the results (or values) argument: a list of them, or one.
func plotRows(b *starlark.Builtin, v starlark.Value) ([]starlark.Value, error) {
	rows, err := values.Rows(b.Name(), v)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: the list is empty; there is nothing to draw", b.Name())
	}
	return rows, nil
}

// plotLabels reads labels=: None or a list of strings.
func plotLabels(b *starlark.Builtin, v starlark.Value) ([]string, error) {
	if v == starlark.None {
		return nil, nil
	}
	it, ok := v.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("%s: labels must be a list of strings, got %s", b.Name(), v.Type())
	}
	var out []string
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for i := 0; iter.Next(&x); i++ {
		s, ok := starlark.AsString(x)
		if !ok {
			return nil, fmt.Errorf("%s: labels[%d] must be a string, got %s", b.Name(), i, x.Type())
		}
		out = append(out, s)
	}
	return out, nil
}

// fieldNames reads x= and series=: a field name or None.
func fieldNames(b *starlark.Builtin, xv, sv starlark.Value) (string, string, error) {
	var out [2]string
	for i, v := range []starlark.Value{xv, sv} {
		if v == starlark.None {
			continue
		}
		s, ok := starlark.AsString(v)
		if !ok || s == "" {
			return "", "", fmt.Errorf("%s: %s must be a field name such as \"config.request\", got %s", b.Name(), []string{"x", "series"}[i], v.String())
		}
		out[i] = s
	}
	return out[0], out[1], nil
}

// points counts what a picture draws: each series' points, each bar.
func points(g Drawable) int {
	switch g := g.(type) {
	case *Figure:
		n := 0
		for _, s := range g.Series {
			n += len(s.Points) + len(s.Marks)
		}
		return n
	case *Bars:
		return len(g.Bars)
	case *Stack:
		n := 0
		for _, f := range g.Panels {
			n += points(f)
		}
		return n
	}
	return 0
}
