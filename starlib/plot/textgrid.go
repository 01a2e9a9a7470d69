package plot

import (
	"fmt"
	"math/bits"
	"strings"
)

// Priorities of what a text chart's cell shows: a point hides the line
// through it and an interval's bar, and a cell where points of several
// series meet shows how many they are, so that no series' point is
// hidden by another's without a word.
const (
	prioLine = iota + 1
	prioErr
	prioMark
	prioShared
)

// draw lays the series out on a grid of rows lines of plotCols cells,
// top line first: each point its series' mark, the lines between them
// dots, intervals bars, and a cell where points of n series fall the
// digit n. shared has bit n set for each such n.
func (f *Figure) draw(g glyphs, tx, ty axis, col, row func(float64) int, ymin float64, rows int) (grid [][]string, shared uint16) {
	grid = make([][]string, rows)
	prios := make([][]int, rows)
	owners := make([][]uint8, rows) // which series have a point in a cell (the first eight)
	for i := range grid {
		grid[i] = make([]string, plotCols)
		for j := range grid[i] {
			grid[i][j] = " "
		}
		prios[i] = make([]int, plotCols)
		owners[i] = make([]uint8, plotCols)
	}
	in := func(r, c int) bool { return r >= 0 && r < rows && c >= 0 && c < plotCols }
	set := func(r, c int, s string, prio int) {
		if !in(r, c) || prios[r][c] > prio {
			return
		}
		grid[rows-1-r][c], prios[r][c] = s, prio
	}
	for si, s := range f.Series {
		mark := g.marks[si%len(g.marks)]
		var pc, pr int
		first := true
		for _, p := range s.Points {
			if !tx.ok(p.X) || !ty.ok(p.Y) {
				continue
			}
			c, r := col(p.X), row(p.Y)
			if !first && !f.Step {
				steps := max(abs(c-pc), abs(r-pr))
				for k := 1; k < steps; k++ {
					set(pr+(r-pr)*k/steps, pc+(c-pc)*k/steps, g.line, prioLine)
				}
			}
			if f.Step && !first {
				for k := pc + 1; k < c; k++ {
					set(pr, k, g.line, prioLine)
				}
			}
			if p.Err {
				lo, hi := p.Low, p.High
				if !ty.ok(lo) {
					lo = ymin
				}
				for k := row(lo); k <= row(hi); k++ {
					set(k, c, g.err, prioErr)
				}
			}
			set(r, c, mark, prioMark)
			if in(r, c) && si < len(g.marks) {
				owners[r][c] |= 1 << si
			}
			pc, pr, first = c, r, false
		}
	}
	for r := range owners {
		for c, o := range owners[r] {
			if n := bits.OnesCount8(o); n > 1 {
				set(r, c, fmt.Sprint(n), prioShared)
				shared |= 1 << n
			}
		}
	}
	return grid, shared
}

// sharedNote is the legend's line for the digits drawn where points of
// several series fall in one cell.
func sharedNote(shared uint16) string {
	var ns []string
	for n := 2; n <= 8; n++ {
		if shared&(1<<n) != 0 {
			ns = append(ns, fmt.Sprint(n))
		}
	}
	return strings.Join(ns, ", ") + ": points of that many series in one cell"
}

// maxLegendLines bounds a text chart's legend; the plot gives way to it.
const maxLegendLines = 4

// legend names each series by its mark, in columns of one width so that
// the marks line up, in at most maxLegendLines lines (a series beyond
// them is counted at the end).
func (f *Figure) legend(g glyphs) []string {
	if len(f.Series) < 2 && (len(f.Series) == 0 || f.Series[0].Name == "") {
		return nil
	}
	items := make([]string, len(f.Series))
	width := 0
	for i, s := range f.Series {
		items[i] = g.marks[i%len(g.marks)] + " " + s.Name
		width = max(width, len([]rune(items[i]))+2)
	}
	cols := max(1, min(len(items), (TextWidth+2)/width))
	var lines []string
	for i := 0; i < len(items); i += cols {
		if len(lines) == maxLegendLines {
			lines[len(lines)-1] += fmt.Sprintf("  (+%d more)", len(items)-i)
			break
		}
		var b strings.Builder
		for j := i; j < min(i+cols, len(items)); j++ {
			fmt.Fprintf(&b, "%-*s", width, clip(items[j], width-2))
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	for i := range lines {
		lines[i] = clip(lines[i], TextWidth)
	}
	return lines
}
