package hist

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// nearestRank is the exact nearest-rank percentile of sorted: the sample
// of rank ceil(p·n/100), p a decimal string, computed with rationals.
func nearestRank(sorted []int64, p string) int64 {
	q, _ := new(big.Rat).SetString(p)
	if q.Sign() <= 0 {
		return sorted[0]
	}
	q.Mul(q, big.NewRat(int64(len(sorted)), 100))
	r := new(big.Int).Quo(q.Num(), q.Denom())
	if !q.IsInt() {
		r.Add(r, big.NewInt(1))
	}
	k := min(max(int(r.Int64()), 1), len(sorted))
	return sorted[k-1]
}

// TestPercentileWithinBucketError checks Percentile against the exact
// nearest-rank value of known samples: equal below ExactBelow, within the
// stated 1/256 above it, for percentiles whose rank floating point gets
// wrong (7 and 14 of 100 samples) as well as the usual ones.
func TestPercentileWithinBucketError(t *testing.T) {
	ps := []string{"0", "0.1", "1", "7", "14", "28", "33.3", "50", "55", "68", "90", "99", "99.9", "99.99", "100"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 100, 700, 1000, 4321} {
		for _, scale := range []float64{100, 50e3, 5e6} { // around 100 ns, 50 us, 5 ms
			h := New()
			xs := make([]int64, n)
			for i := range xs {
				xs[i] = int64(rng.ExpFloat64() * scale)
				h.Record(xs[i])
			}
			slices.Sort(xs)
			got := make([]int64, len(ps))
			fs := make([]float64, len(ps))
			for i, p := range ps {
				fs[i], _ = strconv.ParseFloat(p, 64)
			}
			h.Percentiles(fs, got)
			for i, p := range ps {
				want := nearestRank(xs, p)
				diff := got[i] - want
				if diff < 0 {
					diff = -diff
				}
				if want < ExactBelow && diff != 0 || diff*256 > want {
					t.Errorf("n=%d scale=%g: percentile %s = %d ns, nearest rank %d ns: off by %d, more than 1/256", n, scale, p, got[i], want, diff)
				}
				if one := h.Percentile(fs[i]); one != got[i] {
					t.Errorf("n=%d: Percentile(%s) = %d alone, %d among others", n, p, one, got[i])
				}
			}
			s := h.Summary()
			for i, p := range []float64{50, 90, 99, 99.9} {
				sum := []float64{s.P50, s.P90, s.P99, s.P999}[i]
				if us := float64(h.Percentile(p)) / 1e3; us != sum {
					t.Errorf("n=%d: Percentile(%g) = %g us, Summary says %g", n, p, us, sum)
				}
			}
		}
	}
}

// TestPercentileEdges: an empty histogram gives 0; out-of-range p clamps
// to min and max; the order of ps does not matter.
func TestPercentileEdges(t *testing.T) {
	h := New()
	if got := h.Percentile(50); got != 0 {
		t.Errorf("empty: %d, want 0", got)
	}
	for _, v := range []int64{5, 1, 9, 3, 7} {
		h.Record(v)
	}
	out := make([]int64, 5)
	h.Percentiles([]float64{100, -1, 50, 150, 20}, out)
	if want := []int64{9, 1, 5, 9, 1}; !slices.Equal(out, want) {
		t.Errorf("Percentiles = %v, want %v", out, want)
	}
}
