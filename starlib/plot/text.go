package plot

import (
	"fmt"
	"math"
	"strings"
)

// Text chart bounds: a mail to a list that takes plain text only.
const (
	TextWidth  = 72
	TextHeight = 20
)

// glyph sets of the text charts.
type glyphs struct {
	marks                      []string
	line, err, bar, vert, horz string
	corner, tick               string
}

var (
	asciiGlyphs   = glyphs{marks: []string{"*", "o", "+", "x", "#", "@", "%", "&"}, line: ".", err: "|", bar: "#", vert: "|", horz: "-", corner: "+", tick: "+"}
	unicodeGlyphs = glyphs{marks: []string{"●", "○", "■", "□", "▲", "◆", "▼", "◇"}, line: "·", err: "│", bar: "█", vert: "│", horz: "─", corner: "└", tick: "┬"}
)

func glyphSet(unicode bool) glyphs {
	if unicode {
		return unicodeGlyphs
	}
	return asciiGlyphs
}

// plot area of the text chart, in cells: left of it the y tick labels.
const (
	yLabelWidth = 9
	plotCols    = TextWidth - yLabelWidth - 1
)

// Text lays the figure out as a text chart of at most TextWidth columns and
// TextHeight lines: the title, the y label, the points of every series
// (each its own mark, joined by dots, intervals as bars), the x axis with
// its range and label, and a legend. No final newline.
func (f *Figure) Text(unicode bool) (string, error) {
	if len(f.Series) == 0 {
		return "", fmt.Errorf("nothing to plot")
	}
	g := glyphSet(unicode)
	if !unicode {
		f = f.ascii()
	}
	legend := f.legend(g)
	rows := TextHeight - 3 - len(legend) // y label, axis, x ticks
	if f.Title != "" {
		rows--
	}
	if f.XLabel != "" {
		rows--
	}
	tx := axisMap(f.LogX)
	ty := axisMap(f.LogY)
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range f.Series {
		for _, p := range s.Points {
			if !tx.ok(p.X) || !ty.ok(p.Y) {
				continue
			}
			xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
			lo, hi := p.Y, p.Y
			if p.Err {
				lo, hi = math.Min(lo, p.Low), math.Max(hi, p.High)
			}
			if ty.ok(lo) {
				ymin = math.Min(ymin, lo)
			}
			ymax = math.Max(ymax, hi)
		}
	}
	if math.IsInf(xmin, 0) {
		return "", fmt.Errorf("no point can be shown (log axes need values above 0)")
	}
	if !f.LogY && ymin > 0 {
		ymin = 0 // from zero, so that a small difference looks small
	}
	if f.XZero && !f.LogX && xmin > 0 {
		xmin = 0 // time from the start, as the pictures draw it
	}
	col := scaler(tx, xmin, xmax, plotCols-1)
	grid, shared := f.draw(g, tx, ty, col, scaler(ty, ymin, ymax, rows-1), ymin, rows)
	if shared != 0 {
		// A cell where points of several series fall shows how many: a
		// line of the legend says so, and the plot gives it room.
		legend = append(legend, sharedNote(shared))
		rows--
		grid, _ = f.draw(g, tx, ty, col, scaler(ty, ymin, ymax, rows-1), ymin, rows)
	}
	var lines []string
	if f.Title != "" {
		lines = append(lines, clip(f.Title, TextWidth))
	}
	lines = append(lines, clip(f.YLabel, TextWidth))
	for i := range grid {
		label := ""
		r := rows - 1 - i
		if r == rows-1 || r == 0 || r == (rows-1)/2 {
			label = short(ty.inv(ymin, ymax, float64(r)/float64(rows-1)))
		}
		lines = append(lines, strings.TrimRight(fmt.Sprintf("%*s %s%s", yLabelWidth-1, label, g.vert, strings.Join(grid[i], "")), " "))
	}
	axis := strings.Repeat(" ", yLabelWidth-1) + " " + g.corner + strings.Repeat(g.horz, plotCols)
	lines = append(lines, axis)
	lines = append(lines, f.xTicks(tx, xmin, xmax, col))
	if f.XLabel != "" {
		lines = append(lines, fmt.Sprintf("%*s", TextWidth, clip(f.XLabel, TextWidth)))
	}
	lines = append(lines, legend...)
	return strings.Join(lines, "\n"), nil
}

// xTicks is the line under the x axis: the first, middle and last x value,
// or the names of the positions when there are few enough to fit.
func (f *Figure) xTicks(tx axis, xmin, xmax float64, col func(float64) int) string {
	line := []rune(strings.Repeat(" ", TextWidth))
	put := func(c int, s string) {
		c += yLabelWidth + 1 - len(s)/2
		c = max(0, min(c, TextWidth-len(s)))
		for i, r := range s {
			line[c+i] = r
		}
	}
	if f.XNames != nil {
		for i, n := range f.XNames {
			put(col(float64(i)), clip(n, max(1, plotCols/max(1, len(f.XNames))-1)))
		}
	} else {
		put(0, short(xmin))
		put(plotCols-1, short(xmax))
		if xmax > xmin {
			put(plotCols/2, short(tx.inv(xmin, xmax, 0.5)))
		}
	}
	return strings.TrimRight(string(line), " ")
}

// axis maps values onto a linear or logarithmic axis.
type axis struct{ log bool }

func axisMap(log bool) axis { return axis{log} }

func (a axis) ok(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!a.log || v > 0)
}

func (a axis) f(v float64) float64 {
	if a.log {
		return math.Log10(v)
	}
	return v
}

// inv is the value at fraction t of the way from lo to hi.
func (a axis) inv(lo, hi, t float64) float64 {
	v := a.f(lo) + t*(a.f(hi)-a.f(lo))
	if a.log {
		return math.Pow(10, v)
	}
	return v
}

// scaler maps [lo, hi] on axis a onto cells 0..n.
func scaler(a axis, lo, hi float64, n int) func(float64) int {
	l, h := a.f(lo), a.f(hi)
	return func(v float64) int {
		if h == l {
			return n / 2
		}
		return int(math.Round((a.f(v) - l) / (h - l) * float64(n)))
	}
}

// Text lays the bars out as a text chart, one line per value: its label,
// a bar from zero to the value with the interval's ends marked [ and ],
// and the figures. At most TextHeight lines.
func (b *Bars) Text(unicode bool) (string, error) {
	if len(b.Bars) == 0 {
		return "", fmt.Errorf("nothing to plot")
	}
	g := glyphSet(unicode)
	if !unicode {
		c := *b
		c.Title, c.YLabel = asciiText(b.Title), asciiText(b.YLabel)
		c.Bars = append([]Bar(nil), b.Bars...)
		for i := range c.Bars {
			c.Bars[i].Label = asciiText(c.Bars[i].Label)
		}
		b = &c
	}
	var lines []string
	if b.Title != "" {
		lines = append(lines, clip(b.Title, TextWidth))
	}
	if b.YLabel != "" {
		lines = append(lines, clip(b.YLabel, TextWidth))
	}
	room := TextHeight - len(lines)
	shown := b.Bars
	if len(shown) > room {
		shown = shown[:room-1]
	}
	labelW := 0
	figs := make([]string, len(shown))
	figW := 0
	for i, bar := range shown {
		labelW = max(labelW, len([]rune(bar.Label)))
		figs[i] = fmt.Sprintf("%s [%s, %s]", short(bar.Value), short(bar.Low), short(bar.High))
		figW = max(figW, len(figs[i]))
	}
	labelW = min(labelW, 18)
	barW := TextWidth - labelW - figW - 3
	lo, hi := 0.0, 0.0
	for _, bar := range shown {
		lo = math.Min(lo, math.Min(bar.Value, bar.Low))
		hi = math.Max(hi, math.Max(bar.Value, bar.High))
	}
	col := scaler(axis{}, lo, hi, barW-1)
	if hi == lo {
		col = func(float64) int { return 0 }
	}
	zero := col(0)
	for i, bar := range shown {
		cells := []string{}
		for k := 0; k < barW; k++ {
			cells = append(cells, " ")
		}
		a, z := zero, col(bar.Value)
		if a > z {
			a, z = z, a
		}
		for k := a; k <= z; k++ {
			cells[k] = g.bar
		}
		if zero > 0 && zero < barW {
			if cells[zero] == " " {
				cells[zero] = g.vert
			}
		}
		cells[col(bar.Low)] = "["
		cells[col(bar.High)] = "]"
		label := clip(bar.Label, labelW)
		lines = append(lines, fmt.Sprintf("%-*s %s  %s", labelW, label, strings.Join(cells, ""), figs[i]))
	}
	if len(shown) < len(b.Bars) {
		lines = append(lines, fmt.Sprintf("... and %d more", len(b.Bars)-len(shown)))
	}
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n"), nil
}

// short formats a figure in at most 8 characters: 3 significant digits
// with k, M or G for thousands, millions and billions.
func short(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1e9:
		return trimZeros(fmt.Sprintf("%.3g", v/1e9)) + "G"
	case a >= 1e6:
		return trimZeros(fmt.Sprintf("%.3g", v/1e6)) + "M"
	case a >= 1e4:
		return trimZeros(fmt.Sprintf("%.3g", v/1e3)) + "k"
	case a >= 1:
		return trimZeros(fmt.Sprintf("%.4g", v))
	}
	return trimZeros(fmt.Sprintf("%.2g", v))
}

func trimZeros(s string) string {
	if strings.ContainsAny(s, "e") || !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// clip cuts s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return string(r[:n])
	}
	return string(r[:n-1]) + "~"
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ascii returns a copy of f whose texts are plain ASCII.
func (f *Figure) ascii() *Figure {
	c := *f
	c.Title, c.XLabel, c.YLabel = asciiText(f.Title), asciiText(f.XLabel), asciiText(f.YLabel)
	c.XNames = nil
	for _, n := range f.XNames {
		c.XNames = append(c.XNames, asciiText(n))
	}
	c.Series = append([]Series(nil), f.Series...)
	for i := range c.Series {
		c.Series[i].Name = asciiText(c.Series[i].Name)
	}
	return &c
}

// asciiText spells micro as u and any other character beyond ASCII as ?.
func asciiText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == 'µ' || r == 'μ':
			return 'u'
		case r > 126 || r < 32:
			return '?'
		}
		return r
	}, s)
}
