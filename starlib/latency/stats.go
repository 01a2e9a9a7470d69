package latency

import (
	"math"
	"sort"

	"netscript/engine/hist"
)

// trimmedMean is the draft's single-sided trimmed mean (section 5.3.1):
// the mean of the samples at or below the keep quantile (0.95 for its TMP
// of 95 %), the slowest ones left out as noise. NaN for no samples.
func trimmedMean(xs []float64, keep float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := int(math.Ceil(keep * float64(len(s))))
	n = min(max(n, 1), len(s))
	sum := 0.0
	for _, x := range s[:n] {
		sum += x
	}
	return sum / float64(n)
}

// histTrimmedMean is trimmedMean over a latency histogram (nanoseconds),
// in milliseconds: each bucket's samples taken at its middle, clamped to
// the histogram's minimum and maximum, and the bucket that crosses the
// keep quantile counted in part. NaN for an empty histogram.
func histTrimmedMean(h *hist.Histogram, keep float64) float64 {
	if h == nil || h.Count() == 0 {
		return math.NaN()
	}
	want := math.Max(1, math.Ceil(keep*float64(h.Count())))
	lo, hi := float64(h.Min()), float64(h.Max())
	taken, sum := 0.0, 0.0
	h.Buckets(func(a, b int64, n uint64) {
		if taken >= want {
			return
		}
		mid := math.Min(math.Max((float64(a)+float64(b))/2, lo), hi)
		k := math.Min(float64(n), want-taken)
		taken += k
		sum += k * mid
	})
	return sum / taken / 1e6
}

// meanStddev returns the mean and the population standard deviation of
// xs, as the draft's stability test compares them (section 5.4).
func meanStddev(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}

// stable is the draft's stability criterion (section 5.4): the standard
// deviation of the last mad values is within tolerance (a fraction) of
// the latest one. False until there are mad values.
func stable(xs []float64, mad int, tolerance float64) bool {
	if len(xs) < mad {
		return false
	}
	last := xs[len(xs)-mad:]
	_, sd := meanStddev(last)
	cur := last[len(last)-1]
	return !math.IsNaN(sd) && cur > 0 && sd <= tolerance*cur
}

// rpm converts a round trip in milliseconds to round trips per minute
// (section 1.2 of the draft: 60000 / ms).
func rpm(ms float64) float64 {
	if !(ms > 0) {
		return math.NaN()
	}
	return 60000 / ms
}
