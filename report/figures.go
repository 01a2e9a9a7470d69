package report

import (
	"fmt"
	"math"
	"strings"

	"go.starlark.net/starlark"

	"netscript/engine/result"
	"netscript/record"
	"netscript/starlib/plot"
	"netscript/starlib/values"
)

// Figure is one picture of a run, with the title it is shown under.
type Figure struct {
	Title string
	Fig   interface {
		plot.Drawable
		Text(unicode bool) (string, error)
	}
}

// sweepFields are the config fields a sweep varies, in the order they are
// tried for the x axis.
var sweepFields = []string{"config.burst", "config.request", "config.response", "config.send_size", "config.recv_size",
	"config.flows", "config.local_send_buffer", "config.local_recv_buffer", "config.duration"}

// maxCurves bounds the latency curves of one picture, beyond which it
// cannot be read.
const maxCurves = 8

// Figures picks the pictures that fit a run's results: for each kind of
// unit, throughput (and p99 latency) against the config field its results
// vary, one line per test; the latency distribution of the results that
// kept histograms; and the interim samples of those that have them. Notes
// say what could not be drawn and why.
func Figures(results []record.RunResult) (figs []Figure, notes []string) {
	var order []string
	groups := map[string][]starlark.Value{}
	var withHist, withInterim []starlark.Value
	rrWithoutHist := 0
	for _, rr := range results {
		res := *rr.Result
		if res.Failed() {
			// Its figures are not measurements: drawn, they would be
			// zeros. The note says it failed, and the tables say why.
			notes = append(notes, fmt.Sprintf("%s failed and is not drawn: %s", describe(&res), res.Error))
			continue
		}
		if rr.Partial {
			res.Brand = strings.TrimSpace(res.Brand + " (partial)")
		}
		v := values.NewResult(&res)
		if _, ok := groups[res.Units]; !ok {
			order = append(order, res.Units)
		}
		groups[res.Units] = append(groups[res.Units], v)
		switch {
		case res.Hist != nil && res.Hist.Count() > 0:
			withHist = append(withHist, v)
		case res.Latency != nil && res.Latency.Count > 0:
			rrWithoutHist++
		}
		if len(res.Interim) > 0 {
			withInterim = append(withInterim, v)
		}
	}
	for _, units := range order {
		rows := groups[units]
		x := varied(rows)
		if x == "" || len(rows) < 2 {
			continue
		}
		lined := sweepLines(rows, x)
		spec := plot.PlotSpec{X: x, Series: "line", Title: fmt.Sprintf("throughput against %s", x)}
		if f, err := plot.SweepFigure(lined, spec); err == nil {
			figs = append(figs, Figure{spec.Title, f})
		} else {
			notes = append(notes, fmt.Sprintf("no sweep of %s: %v", units, err))
		}
		if units == result.UnitsTrans {
			spec.Y, spec.Title = "latency.p99", fmt.Sprintf("p99 latency against %s", x)
			spec.YLabel = "latency.p99 (µs)"
			if f, err := plot.SweepFigure(lined, spec); err == nil {
				figs = append(figs, Figure{spec.Title, f})
			}
		}
	}
	if len(withHist) > 0 {
		shown := withHist
		if len(shown) > maxCurves {
			notes = append(notes, fmt.Sprintf("latency distribution: the first %d of %d results", maxCurves, len(shown)))
			shown = shown[:maxCurves]
		}
		if f, err := plot.LatencyFigure(shown, plot.CCDF, "latency distribution"); err == nil {
			figs = append(figs, Figure{"latency distribution", f})
		} else {
			notes = append(notes, fmt.Sprintf("no latency distribution: %v", err))
		}
	}
	if rrWithoutHist > 0 {
		notes = append(notes, fmt.Sprintf("%d results keep only latency percentiles, not the histogram a distribution is drawn from", rrWithoutHist))
	}
	var tsOrder []string
	tsGroups := map[string][]starlark.Value{}
	t0 := math.Inf(1) // the run's first start: every time series on one clock
	for _, rr := range results {
		if len(rr.Result.Interim) > 0 {
			t0 = math.Min(t0, rr.Result.Start)
		}
	}
	for _, v := range withInterim {
		u := unitsOf(v)
		if _, ok := tsGroups[u]; !ok {
			tsOrder = append(tsOrder, u)
		}
		tsGroups[u] = append(tsGroups[u], v)
	}
	for _, u := range tsOrder {
		title := "throughput over time (" + u + ")"
		shown := tsGroups[u]
		if len(shown) > maxCurves {
			notes = append(notes, fmt.Sprintf("%s: the first %d of %d results", title, maxCurves, len(shown)))
			shown = shown[:maxCurves]
		}
		if f, err := plot.TimeseriesFigureFrom(shown, "throughput", false, title, t0); err == nil {
			figs = append(figs, Figure{title, f})
		} else {
			notes = append(notes, fmt.Sprintf("no time series: %v", err))
		}
	}
	return figs, notes
}

// sweepLines gives each result a line of its own test and of the values
// of the other config fields that vary (request and response beside a
// burst sweep), so that a line joins only results that differ in x.
func sweepLines(rows []starlark.Value, x string) []starlark.Value {
	byTest := map[string][]starlark.Value{}
	for _, r := range rows {
		byTest[fieldText(r, "test")] = append(byTest[fieldText(r, "test")], r)
	}
	var others []string // varied within a test: defaults differ between tests
	for _, f := range sweepFields {
		for _, rs := range byTest {
			if f != x && variedField(rs, f) {
				others = append(others, f)
				break
			}
		}
	}
	multi := tests(rows) > 1
	out := make([]starlark.Value, len(rows))
	for i, r := range rows {
		var parts []string
		if multi || len(others) == 0 {
			parts = append(parts, fieldText(r, "test"))
		}
		for _, f := range others {
			parts = append(parts, strings.TrimPrefix(f, "config.")+"="+fieldText(r, f))
		}
		d := starlark.NewDict(1)
		d.SetKey(starlark.String("line"), starlark.String(strings.Join(parts, " ")))
		out[i] = &lineRow{r.(starlark.HasAttrs), d}
	}
	return out
}

// lineRow is a result with one more field, line, for the legend.
type lineRow struct {
	starlark.HasAttrs
	extra *starlark.Dict
}

// Attr returns line, else the result's field.
func (l *lineRow) Attr(name string) (starlark.Value, error) {
	if v, ok, _ := l.extra.Get(starlark.String(name)); ok {
		return v, nil
	}
	return l.HasAttrs.Attr(name)
}

// AttrNames lists the result's fields and line.
func (l *lineRow) AttrNames() []string { return append(l.HasAttrs.AttrNames(), "line") }

func fieldText(r starlark.Value, f string) string {
	v, err := values.Field(r, f)
	if err != nil {
		return "?"
	}
	if s, ok := starlark.AsString(v); ok {
		return s
	}
	return v.String()
}

// variedField reports whether field f differs between rows.
func variedField(rows []starlark.Value, f string) bool {
	seen := map[string]bool{}
	for _, r := range rows {
		v, err := values.Field(r, f)
		if err != nil {
			return false
		}
		seen[v.String()] = true
	}
	return len(seen) > 1
}

// varied is the first of sweepFields whose value differs between rows, or "".
func varied(rows []starlark.Value) string {
	for _, f := range sweepFields {
		seen := map[string]bool{}
		for _, r := range rows {
			v, err := values.Field(r, f)
			if err != nil {
				break
			}
			seen[v.String()] = true
		}
		if len(seen) > 1 {
			return f
		}
	}
	return ""
}

// tests counts the kinds of test among rows.
func tests(rows []starlark.Value) int {
	seen := map[string]bool{}
	for _, r := range rows {
		if v, err := values.Field(r, "test"); err == nil {
			seen[v.String()] = true
		}
	}
	return len(seen)
}

func unitsOf(v starlark.Value) string {
	u, err := values.Field(v, "units")
	if err != nil {
		return ""
	}
	s, _ := starlark.AsString(u)
	return s
}

// Charts lays the figures of a run out as text charts, each under its
// title, and the notes after them.
func Charts(results []record.RunResult, unicode bool) (string, error) {
	figs, notes := Figures(results)
	var parts []string
	for _, f := range figs {
		t, err := f.Fig.Text(unicode)
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.Title, err)
		}
		parts = append(parts, t)
	}
	for _, n := range notes {
		parts = append(parts, "("+n+")")
	}
	return strings.Join(parts, "\n\n"), nil
}

// describe names a result for a note: its test, and its brand if it has
// one.
func describe(res *result.Result) string {
	if res.Brand == "" {
		return res.Test
	}
	return fmt.Sprintf("%s %q", res.Test, res.Brand)
}
