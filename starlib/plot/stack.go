package plot

import (
	"fmt"
	"io"
	"math"

	"go.starlark.net/starlark"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"netscript/starlib/values"
)

// Stack is timeseries() of several panels, one above the other on one
// clock, as flent's "all" plot stacks download, upload and ping: each
// panel a Figure with its own y axis and legend.
type Stack struct {
	Panels []*Figure
}

// Plot refuses: a stack is drawn panel by panel (Write does).
func (s *Stack) Plot() (*gplot.Plot, error) {
	return nil, fmt.Errorf("a stack of %d panels has no single plot", len(s.Panels))
}

// write draws the panels into out, one above the other, their plot areas
// aligned (gonum's plot.Align) so one instant is at one x in each, and
// each panel's legend in a column of its own at the right.
func (s *Stack) write(out io.Writer, format string, w, h vg.Length) error {
	c, err := newCanvas(w, h, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	plots := make([][]*gplot.Plot, len(s.Panels))
	legends := make([]gplot.Legend, len(s.Panels))
	lw := vg.Length(0)
	for i, f := range s.Panels {
		p, err := f.Plot()
		if err != nil {
			return fmt.Errorf("panel %q: %w", f.Title, err)
		}
		legends[i] = p.Legend
		lw = max(lw, p.Legend.Rectangle(dc).Size().X)
		p.Legend = gplot.NewLegend() // drawn beside, never over the data
		plots[i] = []*gplot.Plot{p}
	}
	pad := vg.Points(6)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(4)}
	cells := gplot.Align(plots, tiles, draw.Crop(dc, 0, -(lw+2*pad), 0, 0))
	for i := range plots {
		plots[i][0].Draw(cells[i][0])
		leg := legends[i]
		leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, false, 0, 0
		cell := cells[i][0]
		top := vg.Length(0)
		if t := plots[i][0].Title; t.Text != "" {
			top = t.TextStyle.Rectangle(t.Text).Size().Y + t.Padding
		}
		leg.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: dc.Max.X - lw - pad, Y: cell.Min.Y}, Max: vg.Point{X: dc.Max.X - pad, Y: cell.Max.Y - top}}})
	}
	_, err = c.WriteTo(out)
	return err
}

// panelsOf reads timeseries()'s results when they are panels: a dict
// whose every value is a list, its keys the panels' titles, in order.
// A dict with any other value is one result (r.to_dict()): false.
func panelsOf(v starlark.Value) ([]string, []starlark.Value, bool) {
	d, ok := v.(*starlark.Dict)
	if !ok || d.Len() == 0 {
		return nil, nil, false
	}
	var titles []string
	var lists []starlark.Value
	for _, kv := range d.Items() {
		k, ok := starlark.AsString(kv[0])
		if _, isList := kv[1].(*starlark.List); !ok || !isList {
			return nil, nil, false
		}
		titles, lists = append(titles, k), append(lists, kv[1])
	}
	return titles, lists, true
}

// panelY is the field a panel draws: y's value for the panel's title when
// y is a dict, y itself when a string, else throughput.
func panelY(y starlark.Value, title string) (string, error) {
	switch y := y.(type) {
	case starlark.NoneType:
		return "throughput", nil
	case starlark.String:
		return string(y), nil
	case *starlark.Dict:
		v, found, _ := y.Get(starlark.String(title))
		if !found {
			return "throughput", nil
		}
		if s, ok := starlark.AsString(v); ok {
			return s, nil
		}
		return "", fmt.Errorf("y[%q] must be a field name, got %s", title, v.Type())
	}
	return "", fmt.Errorf("y must be a field name, or a dict of one per panel, got %s", y.Type())
}

// StackFigure lays panels of results out one above the other against one
// time axis, counted from the earliest start of any of them: each panel
// as TimeseriesFigure draws it, titled by its key.
func StackFigure(b *starlark.Builtin, titles []string, lists []starlark.Value, y starlark.Value, perFlow bool) (*Stack, error) {
	rows := make([][]starlark.Value, len(lists))
	t0 := math.Inf(1)
	for i, l := range lists {
		r, err := plotRows(b, l)
		if err != nil {
			return nil, fmt.Errorf("panel %q: %w", titles[i], err)
		}
		rows[i] = r
		for _, row := range r {
			if v, err := plotField(row, "start"); err == nil {
				if n, ok := values.Number(v); ok {
					t0 = math.Min(t0, n)
				}
			}
		}
	}
	s := &Stack{}
	for i, title := range titles {
		field, err := panelY(y, title)
		if err != nil {
			return nil, err
		}
		f, err := TimeseriesFigureFrom(rows[i], field, perFlow, title, t0)
		if err != nil {
			return nil, fmt.Errorf("panel %q: %w", title, err)
		}
		s.Panels = append(s.Panels, f)
	}
	return s, nil
}
