package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"netscript/session"
)

// Point is one measured value; Low and High bound it when Err is set (a
// confidence interval).
type Point struct {
	X, Y      float64
	Low, High float64
	Err       bool
}

// Mark is a labelled point drawn over a curve (a percentile).
type Mark struct {
	X, Y  float64
	Label string
}

// Series is one line of a Figure: a result, a flow or a group of results.
type Series struct {
	Name   string
	Points []Point
	Marks  []Mark
}

// Figure is a picture of lines and points against two axes: a sweep, a
// latency distribution or a time series.
type Figure struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	// XNames, when set, names the x positions 0, 1, 2, ... (a field whose
	// values are not numbers, such as brand).
	XNames []string
	Series []Series
	// Step draws each series as a staircase (distributions) rather than
	// straight segments.
	Step bool
	// XZero starts the x axis at 0 (time from the start).
	XZero bool
}

// Bar is one value with its interval.
type Bar struct {
	Label            string
	Value, Low, High float64
}

// Bars is a picture of one bar per value with its interval.
type Bars struct {
	Title, YLabel string
	Bars          []Bar
}

// Default picture size.
const (
	Width  = 16 * vg.Centimeter
	Height = 10 * vg.Centimeter
)

// Formats lists the file extensions Save writes.
var formats = []string{".svg", ".png", ".pdf"}

// Create opens path for a picture, before anything is drawn, so that a
// wrong extension or an unwritable path costs no drawing. It returns the
// open file and the format its extension names. perms decide where path
// may be (nil: anywhere).
func Create(perms *session.Permissions, path string) (*Pending, string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	ok := false
	for _, f := range formats {
		ok = ok || ext == f
	}
	if !ok {
		return nil, "", fmt.Errorf("file %q: the extension says the format; use .svg, .png or .pdf", path)
	}
	f, err := NewPending(perms, path)
	if err != nil {
		return nil, "", err
	}
	return f, ext[1:], nil
}

// Save draws g (a *Figure or *Bars) into path, in the format its extension
// names, w by h (0 for the defaults).
func Save(g Drawable, path string, w, h vg.Length) error {
	f, format, err := Create(nil, path)
	if err != nil {
		return err
	}
	if err := Write(g, f, format, w, h); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// Write draws g to out in format ("svg", "png" or "pdf").
func Write(g Drawable, out io.Writer, format string, w, h vg.Length) error {
	if w == 0 {
		w = Width
	}
	if h == 0 {
		h = Height
	}
	if st, ok := g.(*Stack); ok {
		return st.write(out, format, w, h)
	}
	p, err := g.Plot()
	if err != nil {
		return err
	}
	c, err := newCanvas(w, h, format)
	if err != nil {
		return err
	}
	drawBesideLegend(p, draw.New(c))
	_, err = c.WriteTo(out)
	return err
}

// newCanvas returns the canvas of a picture in format. An SVG carries
// the fonts its text was laid out with (as a PDF does by default): an SVG
// that only names them is drawn in whatever font the viewer's system has,
// whose wider text then runs over the lines beside it.
func newCanvas(w, h vg.Length, format string) (vg.CanvasWriterTo, error) {
	if format == "svg" {
		return vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(true)), nil
	}
	return draw.NewFormattedCanvas(w, h, format)
}

// drawBesideLegend draws p with its legend in a column of its own at the
// right, so that the legend never covers data, wherever the data lie.
func drawBesideLegend(p *gplot.Plot, dc draw.Canvas) {
	leg := p.Legend
	lw := leg.Rectangle(dc).Size().X
	if lw == 0 {
		p.Draw(dc)
		return
	}
	p.Legend = gplot.NewLegend() // nothing for p to draw over its data
	pad := vg.Points(6)
	p.Draw(draw.Crop(dc, 0, -(lw + 2*pad), 0, 0))
	top := vg.Length(0)
	if p.Title.Text != "" {
		top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, false, 0, 0
	// pad keeps the samples off the canvas's edge.
	leg.Draw(draw.Crop(dc, dc.Size().X-lw-pad, -pad, 0, -top))
}

// Plot builds the gonum plot of the figure.
func (f *Figure) Plot() (*gplot.Plot, error) {
	if len(f.Series) == 0 {
		return nil, fmt.Errorf("nothing to plot")
	}
	p, err := newPlot()
	if err != nil {
		return nil, err
	}
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Add(plotter.NewGrid())
	p.X.Tick.Marker = shortTicks{gplot.DefaultTicks{}}
	p.Y.Tick.Marker = shortTicks{gplot.DefaultTicks{}}
	if f.LogX {
		p.X.Scale = gplot.LogScale{}
		p.X.Tick.Marker = shortTicks{gplot.LogTicks{Prec: -1}}
	}
	if f.LogY {
		p.Y.Scale = gplot.LogScale{}
		p.Y.Tick.Marker = shortTicks{gplot.LogTicks{Prec: -1}}
	}
	if f.XNames != nil {
		p.NominalX(f.XNames...)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	var leftX, leftY int // points a log axis cannot show
	for i, s := range f.Series {
		xys := make(plotter.XYs, 0, len(s.Points))
		var errs plotter.YErrors
		var errXYs plotter.XYs
		for _, pt := range s.Points {
			switch {
			case f.LogX && pt.X <= 0:
				leftX++ // cannot be shown on a log axis
				continue
			case f.LogY && pt.Y <= 0:
				leftY++
				continue
			}
			xys = append(xys, plotter.XY{X: pt.X, Y: pt.Y})
			if pt.Err {
				errXYs = append(errXYs, plotter.XY{X: pt.X, Y: pt.Y})
				errs = append(errs, struct{ Low, High float64 }{pt.Y - pt.Low, pt.High - pt.Y})
			}
		}
		if len(xys) == 0 {
			continue
		}
		c := plotutil.Color(i)
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		line.Color = c
		line.Width = vg.Points(1.5)
		line.Dashes = plotutil.Dashes(i)
		if f.Step {
			line.StepStyle = plotter.PostStep
		}
		p.Add(line)
		thumbs := []gplot.Thumbnailer{line}
		if !f.Step {
			pts, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			pts.Color = c
			pts.Shape = plotutil.Shape(i)
			pts.Radius = vg.Points(3)
			p.Add(pts)
			thumbs = append(thumbs, pts)
		}
		if len(errs) > 0 {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{errXYs, errs})
			if err != nil {
				return nil, err
			}
			eb.Color = c
			p.Add(eb)
		}
		if err := addMarks(p, s.Marks, c, f, i == 0); err != nil {
			return nil, err
		}
		if s.Name != "" {
			// gonum ends the text one space before its sample, which a
			// glyph's ring overlaps as rasterised: one more space.
			p.Legend.Add(clip(s.Name, 36)+" ", thumbs...)
		}
	}
	// A log axis says what it left out, so a missing point is not taken
	// for one that was never measured.
	p.X.Label.Text += leftOut(leftX)
	p.Y.Label.Text += leftOut(leftY)
	if f.XZero {
		p.X.Min = math.Min(p.X.Min, 0)
	}
	if !f.LogY && p.Y.Min > 0 {
		p.Y.Min = 0 // from zero, so that a small difference looks small
	}
	return p, nil
}

// leftOut is what an axis title adds for n points its log scale could
// not show (at or below 0), "" for none.
func leftOut(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " (log scale: 1 point at or below 0 not shown)"
	}
	return fmt.Sprintf(" (log scale: %d points at or below 0 not shown)", n)
}

// addMarks draws the percentile marks of a series: a ring each, and for
// the first series their labels (those of several curves would overlap).
func addMarks(p *gplot.Plot, marks []Mark, c color.Color, f *Figure, labelled bool) error {
	var xys plotter.XYs
	var labels []string
	for _, m := range marks {
		if f.LogX && m.X <= 0 || f.LogY && m.Y <= 0 {
			continue
		}
		xys = append(xys, plotter.XY{X: m.X, Y: m.Y})
		labels = append(labels, m.Label)
	}
	if len(xys) == 0 {
		return nil
	}
	ring, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	ring.Color = c
	ring.Shape = draw.RingGlyph{}
	ring.Radius = vg.Points(4)
	p.Add(ring)
	if !labelled {
		return nil // the first curve's labels name every curve's rings
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	inFontOf(p, l.TextStyle)
	for i := range l.TextStyle {
		l.TextStyle[i].Color = c
		l.TextStyle[i].Font.Size = vg.Points(8)
	}
	l.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(-9)}
	p.Add(l)
	return nil
}

// Plot builds the gonum bar chart: one bar per value, its interval as an
// error bar.
func (b *Bars) Plot() (*gplot.Plot, error) {
	if len(b.Bars) == 0 {
		return nil, fmt.Errorf("nothing to plot")
	}
	p, err := newPlot()
	if err != nil {
		return nil, err
	}
	p.Title.Text = b.Title
	p.Y.Label.Text = b.YLabel
	p.Add(plotter.NewGrid())
	vals := make(plotter.Values, len(b.Bars))
	xys := make(plotter.XYs, len(b.Bars))
	errs := make(plotter.YErrors, len(b.Bars))
	names := make([]string, len(b.Bars))
	for i, bar := range b.Bars {
		vals[i] = bar.Value
		xys[i] = plotter.XY{X: float64(i), Y: bar.Value}
		errs[i] = struct{ Low, High float64 }{bar.Value - bar.Low, bar.High - bar.Value}
		names[i] = bar.Label
	}
	bc, err := plotter.NewBarChart(vals, vg.Points(28))
	if err != nil {
		return nil, err
	}
	bc.Color = plotutil.Color(0)
	bc.LineStyle.Width = 0
	p.Add(bc)
	intervals := false
	for _, bar := range b.Bars {
		intervals = intervals || bar.Low != bar.Value || bar.High != bar.Value
	}
	if intervals {
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Width = vg.Points(1.5)
		eb.CapWidth = vg.Points(12)
		p.Add(eb)
	}
	p.NominalX(names...)
	// Half a bar's place of room on either side, and above the highest
	// interval, so no bar or cap touches the frame.
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.Y.Min, p.Y.Max = math.Min(p.Y.Min, 0), math.Max(p.Y.Max, 0)
	span := p.Y.Max - p.Y.Min
	p.Y.Max += 0.05 * span
	if p.Y.Min < 0 {
		p.Y.Min -= 0.05 * span
	}
	p.Y.Tick.Marker = shortTicks{gplot.DefaultTicks{}}
	if len(names) > 5 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	return p, nil
}

// Drawable is what Save and Write draw: a *Figure, a *Bars or a *Stack.
type Drawable interface {
	Plot() (*gplot.Plot, error)
}

// shortTicks labels the ticks of another marker with short figures
// ("250k" rather than "250000.00").
type shortTicks struct{ gplot.Ticker }

// Ticks returns the ticks of the wrapped marker, relabelled.
func (t shortTicks) Ticks(lo, hi float64) []gplot.Tick {
	ticks := t.Ticker.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = short(ticks[i].Value)
		}
	}
	return ticks
}
