package hist

import (
	"math"
	"math/big"
)

// Summary is the digest of a Histogram that results show. Every duration is
// in microseconds (float64), the unit netperf reports latency in. For an
// empty histogram every field is 0.
type Summary struct {
	Count  uint64  // number of samples
	Min    float64 // smallest sample, exact
	Mean   float64 // arithmetic mean, from exact moments
	Stddev float64 // sample standard deviation (n−1), 0 with fewer than 2 samples
	P50    float64 // median, see Histogram.Quantile for the definition
	P90    float64 // 90th percentile
	P99    float64 // 99th percentile
	P999   float64 // 99.9th percentile
	Max    float64 // largest sample, exact
}

// nsPerMicro converts the histogram's nanoseconds to a Summary's
// microseconds.
const nsPerMicro = 1e3

// Summary returns the digest of h in microseconds. The percentiles follow
// the definition given at Quantile; Min, Max, Count, Mean and Stddev are
// exact up to float64 rounding. An empty histogram gives the zero Summary.
func (h *Histogram) Summary() Summary {
	if h.count == 0 {
		return Summary{}
	}
	var p [4]int64
	h.quantiles([]float64{0.50, 0.90, 0.99, 0.999}, p[:])
	return Summary{
		Count:  h.count,
		Min:    float64(h.Min()) / nsPerMicro,
		Mean:   h.Mean() / nsPerMicro,
		Stddev: h.Stddev() / nsPerMicro,
		P50:    float64(p[0]) / nsPerMicro,
		P90:    float64(p[1]) / nsPerMicro,
		P99:    float64(p[2]) / nsPerMicro,
		P999:   float64(p[3]) / nsPerMicro,
		Max:    float64(h.Max()) / nsPerMicro,
	}
}

// Mean returns the arithmetic mean of the samples in nanoseconds: the exact
// 128-bit sum divided by the count, rounded once to float64. An empty
// histogram gives 0.
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	n := new(big.Int).SetUint64(h.count)
	f, _ := new(big.Rat).SetFrac(bigFromWords(h.sum[:]), n).Float64()
	return f
}

// Stddev returns the sample standard deviation (with the n−1 divisor) in
// nanoseconds, computed from the exact integer moments as
// sqrt((n·Σv² − (Σv)²) / (n·(n−1))) with only the final rounding and square
// root inexact. With fewer than two samples it is 0, never NaN.
func (h *Histogram) Stddev() float64 {
	if h.count < 2 {
		return 0
	}
	n := new(big.Int).SetUint64(h.count)
	sum := bigFromWords(h.sum[:])
	num := new(big.Int).Mul(n, bigFromWords(h.sumSq[:]))
	num.Sub(num, sum.Mul(sum, sum))
	if num.Sign() <= 0 { // all samples equal (negative cannot happen)
		return 0
	}
	den := new(big.Int).Sub(n, big.NewInt(1))
	den.Mul(den, n)
	v, _ := new(big.Rat).SetFrac(num, den).Float64()
	return math.Sqrt(v)
}

// bigFromWords returns the integer whose little-endian 64-bit words are ws.
func bigFromWords(ws []uint64) *big.Int {
	z := new(big.Int)
	w := new(big.Int)
	for i := len(ws) - 1; i >= 0; i-- {
		z.Lsh(z, 64)
		z.Or(z, w.SetUint64(ws[i]))
	}
	return z
}
