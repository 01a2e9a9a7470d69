package hist

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactMoments returns the mean and sample standard deviation of xs,
// computed exactly with math/big and rounded once.
func exactMoments(xs []int64) (mean, sd float64) {
	n := big.NewInt(int64(len(xs)))
	sum, sq := new(big.Int), new(big.Int)
	for _, x := range xs {
		b := big.NewInt(x)
		sum.Add(sum, b)
		sq.Add(sq, b.Mul(b, b))
	}
	mean, _ = new(big.Rat).SetFrac(sum, n).Float64()
	if len(xs) < 2 {
		return mean, 0
	}
	num := new(big.Int).Mul(n, sq)
	num.Sub(num, new(big.Int).Mul(sum, sum))
	den := new(big.Int).Mul(n, new(big.Int).Sub(n, big.NewInt(1)))
	v, _ := new(big.Rat).SetFrac(num, den).Float64()
	return mean, math.Sqrt(v)
}

// twoPass returns the mean and sample standard deviation with the float64
// two-pass algorithm.
func twoPass(xs []int64) (mean, sd float64) {
	for _, x := range xs {
		mean += float64(x)
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		d := float64(x) - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// relClose reports whether got is within rel of want (absolutely when want
// is 0).
func relClose(got, want, rel float64) bool {
	if want == 0 {
		return got == 0
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func TestMeanStddev(t *testing.T) {
	r := newRand(3)
	gen := func(n int, f func() int64) []int64 {
		xs := make([]int64, n)
		for i := range xs {
			xs[i] = f()
		}
		return xs
	}
	tests := []struct {
		name     string
		xs       []int64
		checkTwo bool // also compare with the float64 two-pass figures
	}{
		{"small", []int64{1, 2, 3, 4}, true},
		{"uniform", gen(50_000, func() int64 { return r.Int64N(1e7) }), true},
		{"exponential", gen(50_000, func() int64 { return int64(r.ExpFloat64() * 5e4) }), true},
		// 1e12 ns with a spread of a microsecond: a float64 sum of squares
		// would lose the variance entirely.
		{"huge-narrow", gen(20_000, func() int64 { return 1e12 + r.Int64N(1000) }), true},
		{"huge-wide", gen(20_000, func() int64 { return r.Int64N(1e15) }), true},
		// Sums beyond 2^64 and squares beyond 2^128.
		{"maxint", []int64{math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64, 0}, false},
		{"maxint-equal", []int64{math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := New()
			for _, x := range tt.xs {
				h.Record(x)
			}
			wantMean, wantSD := exactMoments(tt.xs)
			if got := h.Mean(); !relClose(got, wantMean, 1e-15) {
				t.Errorf("Mean = %v, exact %v", got, wantMean)
			}
			if got := h.Stddev(); !relClose(got, wantSD, 1e-15) {
				t.Errorf("Stddev = %v, exact %v", got, wantSD)
			}
			if tt.checkTwo {
				m2, s2 := twoPass(tt.xs)
				if got := h.Mean(); !relClose(got, m2, 1e-9) {
					t.Errorf("Mean = %v, two-pass %v", got, m2)
				}
				if got := h.Stddev(); !relClose(got, s2, 1e-9) {
					t.Errorf("Stddev = %v, two-pass %v", got, s2)
				}
			}
		})
	}
}

func TestStddevFewSamples(t *testing.T) {
	h := New()
	if h.Mean() != 0 || h.Stddev() != 0 {
		t.Errorf("empty: mean %v stddev %v, want 0 0", h.Mean(), h.Stddev())
	}
	h.Record(12345)
	if h.Mean() != 12345 || h.Stddev() != 0 {
		t.Errorf("one sample: mean %v stddev %v, want 12345 0", h.Mean(), h.Stddev())
	}
	h.Record(12347)
	if h.Mean() != 12346 || h.Stddev() != math.Sqrt2 {
		t.Errorf("two samples: mean %v stddev %v, want 12346 √2", h.Mean(), h.Stddev())
	}
}

func TestSummary(t *testing.T) {
	if got := New().Summary(); got != (Summary{}) {
		t.Errorf("empty Summary = %+v, want zero", got)
	}
	r := rand.New(rand.NewPCG(9, 9))
	h := New()
	for range 10_000 {
		h.Record(1000 + r.Int64N(1_000_000))
	}
	s := h.Summary()
	want := Summary{
		Count:  h.Count(),
		Min:    float64(h.Min()) / 1e3,
		Mean:   h.Mean() / 1e3,
		Stddev: h.Stddev() / 1e3,
		P50:    float64(h.Quantile(0.5)) / 1e3,
		P90:    float64(h.Quantile(0.9)) / 1e3,
		P99:    float64(h.Quantile(0.99)) / 1e3,
		P999:   float64(h.Quantile(0.999)) / 1e3,
		Max:    float64(h.Max()) / 1e3,
	}
	if s != want {
		t.Errorf("Summary = %+v\nwant      %+v", s, want)
	}
	if !(s.Min <= s.P50 && s.P50 <= s.P90 && s.P90 <= s.P99 && s.P99 <= s.P999 && s.P999 <= s.Max) {
		t.Errorf("Summary percentiles not ordered: %+v", s)
	}
	if s.Min < 1 || s.Max > 1001 || !relClose(s.Mean, 501, 0.02) {
		t.Errorf("Summary not in microseconds: %+v", s)
	}
}
