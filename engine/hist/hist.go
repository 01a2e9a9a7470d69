// Package hist is netscript's latency histogram: every request/response test
// records each transaction's round-trip time (monotonic nanoseconds) into a
// Histogram on the hot path, and results report its Summary (count, min,
// mean, standard deviation, p50/p90/p99/p99.9, max) in microseconds, the
// unit netperf uses for latency.
//
// # Buckets
//
// The buckets are log-linear (HDR style). Values 0..255 ns each have their
// own bucket and are recorded exactly. Above that, every power of two
// [2^k, 2^(k+1)) with k ≥ 8 is split into SubBuckets (128) linear buckets of
// width 2^(k-7), so a bucket is never wider than 1/128 (0.78 %) of the values
// it holds. A bucket is reported at its midpoint, so any quantile is within
// half a bucket, 1/256 (0.39 %), of a sample that really lies at that rank.
//
// The buckets end at MaxTracked (2^44−1 ns, about 4.9 hours); every larger
// value goes into a single overflow bucket, which is reported as the exact
// maximum. The bound keeps a Histogram at about 38 KiB (4865 64-bit counters
// in one fixed array, no pointers), so a thousand flows cost 38 MB. Min, max,
// count and the moments are exact for the whole non-negative int64 range.
//
// # Exact figures
//
// Count, Min and Max are tracked exactly, not taken from buckets. The sum of
// the samples is kept as a 128-bit integer and the sum of their squares as a
// 192-bit integer, so neither can overflow even with 2^64−1 samples of
// math.MaxInt64; Mean and Stddev are computed from them with exact rational
// arithmetic and rounded once to float64. All counters are 64-bit.
//
// # Concurrency and cost
//
// A Histogram is not safe for concurrent use: keep one per flow or per
// thread and Merge them when reporting. Record costs a few nanoseconds and
// never allocates; the reporting methods (Mean, Stddev, Summary) allocate a
// little and are meant for summary time.
package hist

import (
	"errors"
	"math"
	"math/bits"
)

// Bucket layout constants.
const (
	// SubBuckets is the number of linear buckets each power of two above
	// ExactBelow is split into; it fixes the relative error (1/(2·SubBuckets)).
	SubBuckets = 128

	// ExactBelow is the first value that is not recorded exactly: values
	// 0..ExactBelow-1 ns each have a bucket of their own.
	ExactBelow = 2 * SubBuckets

	// MaxTracked is the largest value (ns, about 4.9 hours) that has a
	// regular bucket. Larger values go into the overflow bucket; Max and the
	// moments stay exact for them, but quantiles that land in the overflow
	// bucket report Max.
	MaxTracked = 1<<maxBits - 1
)

const (
	subBits  = 7  // log2(SubBuckets)
	maxBits  = 44 // regular buckets cover [0, 2^maxBits)
	minShift = subBits + 1

	// numTracked is the number of regular buckets: ExactBelow exact ones,
	// then SubBuckets for each power of two from 2^8 to 2^(maxBits-1).
	numTracked = (maxBits - subBits + 1) << subBits

	// overflowIndex is the bucket for values above MaxTracked.
	overflowIndex = numTracked

	// numBuckets counts all buckets, overflow included.
	numBuckets = numTracked + 1
)

// Histogram records non-negative nanosecond durations. The zero value is an
// empty histogram ready for use; New allocates one. A Histogram holds a
// fixed array of buckets, so copy it by pointer.
type Histogram struct {
	count  uint64    // number of samples
	minInv uint64    // ^min, so that the zero value means "no minimum yet"
	max    uint64    // largest sample
	sum    [2]uint64 // Σv as a 128-bit integer, little-endian words
	sumSq  [3]uint64 // Σv² as a 192-bit integer, little-endian words
	counts [numBuckets]uint64
}

// New returns an empty Histogram. It is the only allocation a histogram
// ever needs.
func New() *Histogram {
	return new(Histogram)
}

// bucketIndex returns the bucket for value u.
func bucketIndex(u uint64) int {
	if u > MaxTracked {
		return overflowIndex
	}
	// For u < ExactBelow, Len64(u|0xff) is 8, shift is 0 and the index is u.
	// Otherwise u>>shift lies in [SubBuckets, 2·SubBuckets).
	shift := bits.Len64(u|(ExactBelow-1)) - minShift
	return shift<<subBits + int(u>>uint(shift))
}

// bucketBounds returns the smallest and largest value bucket i holds
// (inclusive). The overflow bucket spans (MaxTracked, math.MaxInt64].
func bucketBounds(i int) (lo, hi uint64) {
	switch {
	case i < ExactBelow:
		return uint64(i), uint64(i)
	case i >= overflowIndex:
		return MaxTracked + 1, math.MaxInt64
	}
	shift := uint(i>>subBits - 1)
	m := uint64(i - int(shift)<<subBits) // in [SubBuckets, 2·SubBuckets)
	lo = m << shift
	return lo, lo + 1<<shift - 1
}

// Record adds one sample of v nanoseconds. A negative v (which a monotonic
// clock cannot produce) is recorded as 0. Record never allocates. It does
// not check for the count passing 2^64−1, which takes 584 years at a
// billion records a second.
func (h *Histogram) Record(v int64) {
	if v < 0 {
		v = 0
	}
	u := uint64(v)
	h.counts[bucketIndex(u)]++
	h.count++
	if inv := ^u; inv > h.minInv {
		h.minInv = inv
	}
	if u > h.max {
		h.max = u
	}
	var c uint64
	h.sum[0], c = bits.Add64(h.sum[0], u, 0)
	h.sum[1] += c
	hi, lo := bits.Mul64(u, u)
	h.sumSq[0], c = bits.Add64(h.sumSq[0], lo, 0)
	h.sumSq[1], c = bits.Add64(h.sumSq[1], hi, c)
	h.sumSq[2] += c
}

// errMergeOverflow is returned when a merge would need more than 2^64-1
// samples.
var errMergeOverflow = errors.New("hist: merge: combined count exceeds 2^64-1 samples")

// Merge adds every sample of o to h, exactly: afterwards h is identical to a
// histogram that recorded the samples of both. o is not changed (h.Merge(h)
// doubles h). The only error is a combined count above 2^64−1, which no real
// run reaches; h is then left unchanged.
func (h *Histogram) Merge(o *Histogram) error {
	if o.count == 0 {
		return nil
	}
	total, carry := bits.Add64(h.count, o.count, 0)
	if carry != 0 {
		return errMergeOverflow
	}
	h.count = total
	h.minInv = max(h.minInv, o.minInv)
	h.max = max(h.max, o.max)
	var c uint64
	h.sum[0], c = bits.Add64(h.sum[0], o.sum[0], 0)
	h.sum[1], _ = bits.Add64(h.sum[1], o.sum[1], c)
	h.sumSq[0], c = bits.Add64(h.sumSq[0], o.sumSq[0], 0)
	h.sumSq[1], c = bits.Add64(h.sumSq[1], o.sumSq[1], c)
	h.sumSq[2], _ = bits.Add64(h.sumSq[2], o.sumSq[2], c)
	// o has no samples outside the buckets of its min and max.
	for i := bucketIndex(uint64(o.Min())); i <= bucketIndex(o.max); i++ {
		h.counts[i] += o.counts[i]
	}
	return nil
}

// Reset empties h so it can be reused without a new allocation.
func (h *Histogram) Reset() {
	*h = Histogram{}
}

// Equal reports whether h and o hold identical state: the same count, min,
// max, moments and bucket counts.
func (h *Histogram) Equal(o *Histogram) bool {
	return *h == *o
}

// Count returns the number of samples recorded.
func (h *Histogram) Count() uint64 {
	return h.count
}

// Min returns the smallest sample in nanoseconds, exactly; 0 when h is
// empty.
func (h *Histogram) Min() int64 {
	if h.count == 0 {
		return 0
	}
	return int64(^h.minInv)
}

// Max returns the largest sample in nanoseconds, exactly; 0 when h is
// empty.
func (h *Histogram) Max() int64 {
	return int64(h.max)
}

// Quantile returns an estimate, in nanoseconds, of the q-quantile of the
// samples, for q in [0, 1] (q below 0 or NaN counts as 0, above 1 as 1).
//
// Definition: with n samples, let r = ceil(q·n) clamped to [1, n]; the
// result is the midpoint of the bucket holding the r-th smallest sample,
// clamped to [Min, Max]. So it is within half a bucket (0.39 %) of that
// sample, and exact below ExactBelow ns. Quantile(0) is Min and Quantile(1)
// is Max, exactly. A rank that falls in the overflow bucket (above
// MaxTracked) reports Max. An empty histogram gives 0.
func (h *Histogram) Quantile(q float64) int64 {
	if h.count == 0 {
		return 0
	}
	switch {
	case !(q > 0): // q ≤ 0 or NaN
		return h.Min()
	case q >= 1:
		return h.Max()
	}
	var out [1]int64
	h.quantiles([]float64{q}, out[:])
	return out[0]
}

// rank returns ceil(q·n) clamped to [1, n], for 0 < q < 1.
func rank(q float64, n uint64) uint64 {
	// float64(n) may round for n > 2^53; the clamp keeps the rank valid.
	r := math.Ceil(q * float64(n))
	if !(r >= 1) {
		return 1
	}
	if r >= float64(n) {
		return n
	}
	return uint64(r)
}

// quantiles fills out[i] with the estimate for qs[i]; qs must be sorted
// ascending, each in (0, 1), and h must not be empty. One pass over the
// buckets serves all of them.
func (h *Histogram) quantiles(qs []float64, out []int64) {
	minV, maxV := uint64(h.Min()), h.max
	first, last := bucketIndex(minV), bucketIndex(maxV)
	var cum uint64
	j := 0
	r := rank(qs[0], h.count)
	for i := first; i <= last && j < len(qs); i++ {
		cum += h.counts[i]
		for j < len(qs) && cum >= r {
			out[j] = int64(bucketValue(i, minV, maxV))
			j++
			if j < len(qs) {
				r = rank(qs[j], h.count)
			}
		}
	}
	for ; j < len(qs); j++ { // unreachable for a consistent histogram
		out[j] = int64(maxV)
	}
}

// bucketValue is the value bucket i stands for in a histogram whose samples
// lie in [minV, maxV]: its midpoint clamped to that range, or maxV for the
// overflow bucket, whose range is too wide for a midpoint to mean anything.
func bucketValue(i int, minV, maxV uint64) uint64 {
	if i >= overflowIndex {
		return maxV
	}
	lo, hi := bucketBounds(i)
	return min(max(lo+(hi-lo)/2, minV), maxV)
}

// Buckets calls fn for every bucket that holds a sample, in ascending
// order, with the smallest and largest value the bucket can hold
// (nanoseconds, inclusive) and its count. Values below ExactBelow have a
// bucket each (lo == hi); the overflow bucket, for values above
// MaxTracked, is reported as (MaxTracked, math.MaxInt64]. The counts sum
// to Count. It is for reporting (re-binning into another layout, such as
// netperf's decades), not for the hot path.
func (h *Histogram) Buckets(fn func(lo, hi int64, n uint64)) {
	if h.count == 0 {
		return
	}
	for i := bucketIndex(uint64(h.Min())); i <= bucketIndex(h.max); i++ {
		if n := h.counts[i]; n > 0 {
			lo, hi := bucketBounds(i)
			fn(int64(lo), int64(hi), n)
		}
	}
}
