package plot

import (
	"fmt"
	"math"

	"netscript/engine/hist"
)

// Latency kinds.
const (
	CDF       = "cdf"
	CCDF      = "ccdf"
	Histogram = "histogram"
)

// markedQuantiles are the percentiles a latency curve marks.
var markedQuantiles = []struct {
	q     float64
	label string
}{{0.5, "p50"}, {0.9, "p90"}, {0.99, "p99"}, {0.999, "p99.9"}}

// LatencySeries turns a full latency histogram (nanoseconds) into one curve
// of the given kind against latency in microseconds, every bucket a step,
// with p50, p90, p99 and p99.9 marked (p99.9 only with 1000 samples or
// more, below which it is the maximum).
func LatencySeries(name string, h *hist.Histogram, kind string) (Series, error) {
	total := h.Count()
	if total == 0 {
		return Series{}, fmt.Errorf("%s has no transactions to plot", name)
	}
	n := float64(total)
	s := Series{Name: name}
	var cum uint64
	type bucket struct {
		lo, hi float64
		n      uint64
	}
	var bs []bucket
	h.Buckets(func(lo, hi int64, c uint64) {
		if hi == math.MaxInt64 {
			hi = h.Max()
		}
		bs = append(bs, bucket{us(lo), us(hi), c})
	})
	switch kind {
	case CDF, CCDF:
		for i, b := range bs {
			if i == 0 {
				s.Points = append(s.Points, cdfPoint(kind, b.lo, 0, total))
			}
			cum += b.n
			if kind == CCDF && cum == total && len(s.Points) > 0 {
				// Nothing is slower than the slowest: a log axis cannot
				// show 0, so the last step runs on to it at its height.
				s.Points = append(s.Points, Point{X: math.Max(b.hi, 0.001), Y: s.Points[len(s.Points)-1].Y})
				continue
			}
			s.Points = append(s.Points, cdfPoint(kind, b.hi, cum, total))
		}
	case Histogram:
		s.Points = logBins(func(fn func(x float64, n uint64)) {
			for _, b := range bs {
				fn((b.lo+b.hi)/2, b.n)
			}
		}, n)
	default:
		return Series{}, fmt.Errorf("kind %q: use \"cdf\", \"ccdf\" or \"histogram\"", kind)
	}
	for _, m := range markedQuantiles {
		if m.q > 0.99 && total < 1000 {
			continue
		}
		x := us(h.Quantile(m.q))
		// On the curve as drawn (a staircase of buckets), where the eye
		// looks for it, rather than at q, which may fall inside a step.
		y := 0.0
		for _, p := range s.Points {
			if p.X <= x {
				y = p.Y
			}
		}
		s.Marks = append(s.Marks, Mark{X: x, Y: y, Label: m.label})
	}
	return s, nil
}

// cdfPoint is the point of a distribution at latency x where cum of total
// transactions took at most x. Counts, not fractions, are subtracted, so a
// CCDF never has a rounding error a log axis would stretch down to.
func cdfPoint(kind string, x float64, cum, total uint64) Point {
	x = math.Max(x, 0.001)
	if kind == CCDF {
		return Point{X: x, Y: float64(total-cum) / float64(total)}
	}
	return Point{X: x, Y: float64(cum) / float64(total)}
}

// us converts nanoseconds to microseconds.
func us(ns int64) float64 { return float64(ns) / 1000 }

// binsPerDecade is how finely a latency histogram is drawn: the engine's
// buckets are far finer than a picture can show.
const binsPerDecade = 10

// logBins sums counts into bins of equal width on a log axis and returns
// the staircase of their fractions of total: a point at each bin's lower
// edge, and one at the last bin's upper edge.
func logBins(each func(func(x float64, n uint64)), total float64) []Point {
	counts := map[int]uint64{}
	first, last := math.MaxInt, math.MinInt
	each(func(x float64, n uint64) {
		k := int(math.Floor(math.Log10(math.Max(x, 0.001)) * binsPerDecade))
		counts[k] += n
		first, last = min(first, k), max(last, k)
	})
	if first > last {
		return nil
	}
	edge := func(k int) float64 { return math.Pow(10, float64(k)/binsPerDecade) }
	var pts []Point
	for k := first; k <= last; k++ {
		pts = append(pts, Point{X: edge(k), Y: float64(counts[k]) / total})
	}
	return append(pts, Point{X: edge(last + 1), Y: float64(counts[last]) / total})
}
