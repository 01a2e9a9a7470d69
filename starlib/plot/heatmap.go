package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"go.starlark.net/starlark"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"netscript/starlib/values"
)

// Heat is a heat map: a matrix of values, its columns and rows named, a
// missing cell NaN (drawn grey). It is what heatmap() draws, as a mesh's
// client-by-server matrix.
type Heat struct {
	Title, XLabel, YLabel string
	Columns, Rows         []string
	Values                [][]float64 // Values[row][column]
}

// heatLabelCells is the most cells whose values are written in them;
// past it the colours alone tell.
const heatLabelCells = 400

// heatGrid is a Heat as gonum's plotter.GridXYZ: column c at x = c, row
// r at y = r.
type heatGrid struct{ h *Heat }

func (g heatGrid) Dims() (int, int)   { return len(g.h.Columns), len(g.h.Rows) }
func (g heatGrid) Z(c, r int) float64 { return g.h.Values[r][c] }
func (g heatGrid) X(c int) float64    { return float64(c) }
func (g heatGrid) Y(r int) float64    { return float64(r) }

// zrange returns the lowest and highest values (+Inf, -Inf if none).
func (h *Heat) zrange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range h.Values {
		for _, v := range row {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return lo, hi
}

// Plot builds the gonum heat map, each cell's value written in it when
// the matrix is small, the lowest and highest values in the title.
func (h *Heat) Plot() (*gplot.Plot, error) {
	lo, hi := h.zrange()
	if len(h.Columns) == 0 || len(h.Rows) == 0 || math.IsInf(lo, 1) {
		return nil, fmt.Errorf("nothing to plot: no cell has a value")
	}
	cm := moreland.Kindlmann()
	cm.SetMax(1)
	// Kindlmann's palette runs from black to white: its lightest sixth is
	// left out, so the highest cell is not taken for the background.
	all := cm.Palette(72).Colors()
	pal := heatPalette(all[:60])
	hm := plotter.NewHeatMap(heatGrid{h}, pal)
	hm.NaN = color.Gray{Y: 0xd0}
	if lo == hi {
		hm.Min, hm.Max = lo-1, hi+1
	}
	p, err := newPlot()
	if err != nil {
		return nil, err
	}
	p.Title.Text = fmt.Sprintf("%s (%s to %s)", h.Title, short(lo), short(hi))
	p.X.Label.Text, p.Y.Label.Text = h.XLabel, h.YLabel
	p.Add(hm)
	if len(h.Columns)*len(h.Rows) <= heatLabelCells {
		var l plotter.XYLabels
		for r, row := range h.Values {
			for c, v := range row {
				if !math.IsNaN(v) {
					l.XYs = append(l.XYs, plotter.XY{X: float64(c), Y: float64(r)})
					l.Labels = append(l.Labels, short(v))
				}
			}
		}
		labels, err := plotter.NewLabels(l)
		if err != nil {
			return nil, err
		}
		inFontOf(p, labels.TextStyle)
		for i := range labels.TextStyle {
			labels.TextStyle[i].XAlign, labels.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
			labels.TextStyle[i].Color = color.White
			v := h.Values[int(l.XYs[i].Y)][int(l.XYs[i].X)]
			if hi > lo && light(pal[int((v-lo)/(hi-lo)*float64(len(pal)-1))]) {
				labels.TextStyle[i].Color = color.Black
			}
		}
		p.Add(labels)
	}
	p.NominalX(h.Columns...)
	p.NominalY(h.Rows...)
	p.X.Min, p.X.Max = -0.5, float64(len(h.Columns))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(h.Rows))-0.5
	return p, nil
}

// heatPalette is a list of colours as gonum's palette.Palette.
type heatPalette []color.Color

// Colors returns the colours, lowest first.
func (p heatPalette) Colors() []color.Color { return p }

// light reports whether black text reads better on c than white.
func light(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return 0.2126*float64(r)+0.7152*float64(g)+0.0722*float64(b) > 0.5*0xffff
}

// heatmapBuiltin: heatmap(points, x, y, z, file, title=None, ...).
func heatmapBuiltin(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pv starlark.Value
	var x, y, z string
	h := &Heat{}
	p := pictureArgs{width: plotWidthPx, height: plotHeightPx}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "points", &pv, "x", &x, "y", &y, "z", &z, "file", &p.file,
		"title?", &h.Title, "xlabel?", &h.XLabel, "ylabel?", &h.YLabel, "width?", &p.width, "height?", &p.height); err != nil {
		return nil, err
	}
	points, err := plotRows(b, pv)
	if err != nil {
		return nil, err
	}
	if h.XLabel == "" {
		h.XLabel = x
	}
	if h.YLabel == "" {
		h.YLabel = y
	}
	type cell struct {
		x, y starlark.Value
		v    float64
	}
	var cells []cell
	for i, pt := range points {
		var fs [3]starlark.Value
		for k, name := range []string{x, y, z} {
			v, err := pointField(pt, name)
			if err != nil {
				return nil, fmt.Errorf("%s: points[%d]: %w", b.Name(), i, err)
			}
			fs[k] = v
		}
		v := math.NaN()
		if fs[2] != starlark.None {
			f, ok := values.Number(fs[2])
			if !ok {
				return nil, fmt.Errorf("%s: points[%d].%s is %s, not a number or None", b.Name(), i, z, fs[2].Type())
			}
			v = f
		}
		cells = append(cells, cell{fs[0], fs[1], v})
	}
	xs, ys := make([]starlark.Value, len(cells)), make([]starlark.Value, len(cells))
	for i, c := range cells {
		xs[i], ys[i] = c.x, c.y
	}
	var col, row map[string]int
	h.Columns, col = categories(xs)
	h.Rows, row = categories(ys)
	h.Values = make([][]float64, len(h.Rows))
	for r := range h.Values {
		h.Values[r] = make([]float64, len(h.Columns))
		for c := range h.Values[r] {
			h.Values[r][c] = math.NaN()
		}
	}
	for _, c := range cells {
		// The first row is drawn at the top, as a matrix is read.
		h.Values[len(h.Rows)-1-row[plainString(c.y)]][col[plainString(c.x)]] = c.v
	}
	slices.Reverse(h.Rows)
	return p.draw(th, b, func() (Drawable, error) { return h, nil })
}

// categories returns the distinct values of vs as names, in numeric
// order if every one is a number, else in the order first seen, and each
// name's index.
func categories(vs []starlark.Value) ([]string, map[string]int) {
	var names []string
	nums := map[string]float64{}
	numeric := true
	for _, v := range vs {
		s := plainString(v)
		if _, seen := nums[s]; seen {
			continue
		}
		f, ok := values.Number(v)
		numeric = numeric && ok
		nums[s] = f
		names = append(names, s)
	}
	if numeric {
		slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(nums[a], nums[b]) })
	}
	index := make(map[string]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	return names, index
}

// pointField reads a point's field: a dict's key or a value's attribute.
func pointField(v starlark.Value, name string) (starlark.Value, error) {
	switch p := v.(type) {
	case *starlark.Dict:
		got, found, err := p.Get(starlark.String(name))
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("no key %q", name)
		}
		return got, nil
	case starlark.HasAttrs:
		got, err := p.Attr(name)
		if err != nil {
			return nil, err
		}
		if got == nil {
			return nil, fmt.Errorf("%s has no field %q", p.Type(), name)
		}
		return got, nil
	}
	return nil, fmt.Errorf("%s is not a dict or a value with fields", v.Type())
}
