package hist

import (
	"math/big"
	"sort"
	"strconv"
)

// Percentile returns an estimate, in nanoseconds, of the p-th percentile
// of the samples for p in [0, 100] (below 0 or NaN counts as 0, above 100
// as 100). It is Quantile(p/100) with the rank ceil(p·n/100) computed
// exactly from the decimal p as written (percentile 7 of 100 samples is
// the 7th, where 0.07·100 in floating point would give the 8th), so the
// result is within half a bucket (0.39 %) of the sample of that rank.
// Percentile(50), (90), (99) and (99.9) are Summary's P50, P90, P99, P999.
func (h *Histogram) Percentile(p float64) int64 {
	var out [1]int64
	h.Percentiles([]float64{p}, out[:])
	return out[0]
}

// Percentiles fills out[i] with Percentile(ps[i]), in one pass over the
// buckets; ps may be in any order. out must be as long as ps.
func (h *Histogram) Percentiles(ps []float64, out []int64) {
	if h.count == 0 {
		clear(out[:len(ps)])
		return
	}
	type want struct {
		rank uint64
		i    int
	}
	var ws []want
	for i, p := range ps {
		switch {
		case !(p > 0):
			out[i] = h.Min()
		case p >= 100:
			out[i] = h.Max()
		default:
			ws = append(ws, want{percentileRank(p, h.count), i})
		}
	}
	if len(ws) == 0 {
		return
	}
	sort.Slice(ws, func(a, b int) bool { return ws[a].rank < ws[b].rank })
	minV, maxV := uint64(h.Min()), h.max
	var cum uint64
	j := 0
	for b := bucketIndex(minV); b <= bucketIndex(maxV) && j < len(ws); b++ {
		cum += h.counts[b]
		for ; j < len(ws) && cum >= ws[j].rank; j++ {
			out[ws[j].i] = int64(bucketValue(b, minV, maxV))
		}
	}
	for ; j < len(ws); j++ { // unreachable for a consistent histogram
		out[ws[j].i] = int64(maxV)
	}
}

// percentileRank is ceil(p·n/100) clamped to [1, n], for 0 < p < 100,
// with p taken as the shortest decimal that reads back as it.
func percentileRank(p float64, n uint64) uint64 {
	q, ok := new(big.Rat).SetString(strconv.FormatFloat(p, 'g', -1, 64))
	if !ok { // cannot happen for a finite p
		return rank(p/100, n)
	}
	q.Mul(q, new(big.Rat).SetFrac(new(big.Int).SetUint64(n), big.NewInt(100)))
	r := new(big.Int).Quo(q.Num(), q.Denom()) // floor: q > 0
	if !q.IsInt() {
		r.Add(r, big.NewInt(1))
	}
	switch {
	case r.Sign() <= 0:
		return 1
	case !r.IsUint64() || r.Uint64() >= n:
		return n
	}
	return max(r.Uint64(), 1)
}
