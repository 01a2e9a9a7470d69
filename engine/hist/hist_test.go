package hist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// relErrBound is the documented worst case: half a bucket of relative width
// 1/SubBuckets.
const relErrBound = 1.0 / (2 * SubBuckets)

// newRand returns the seeded generator every test uses.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6e657473))
}

// withinBound reports whether est is within the documented error of exact:
// equal below ExactBelow, within relErrBound relatively above.
func withinBound(est, exact int64) bool {
	if exact < ExactBelow {
		return est == exact
	}
	return math.Abs(float64(est-exact)) <= relErrBound*float64(exact)
}

func TestBucketLayout(t *testing.T) {
	if got := uint64(numBuckets) * 8; got > 40<<10 {
		t.Errorf("bucket array is %d bytes, want ≤ 40 KiB", got)
	}
	var next uint64 // the value the next bucket must start at
	for i := range numBuckets {
		lo, hi := bucketBounds(i)
		if lo != next {
			t.Fatalf("bucket %d starts at %d, want %d (gap or overlap)", i, lo, next)
		}
		if lo > hi {
			t.Fatalf("bucket %d is empty: [%d, %d]", i, lo, hi)
		}
		if got := bucketIndex(lo); got != i {
			t.Fatalf("bucketIndex(%d) = %d, want %d", lo, got, i)
		}
		if got := bucketIndex(hi); got != i {
			t.Fatalf("bucketIndex(%d) = %d, want %d", hi, got, i)
		}
		if i < ExactBelow && lo != hi {
			t.Fatalf("bucket %d below ExactBelow is not exact: [%d, %d]", i, lo, hi)
		}
		if i < overflowIndex {
			if w := float64(hi - lo + 1); w > 1 && w/float64(lo) > 1.0/SubBuckets {
				t.Fatalf("bucket %d [%d, %d] is wider than 1/%d of its start", i, lo, hi, SubBuckets)
			}
		}
		next = hi + 1
	}
	if lo, hi := bucketBounds(overflowIndex - 1); hi != MaxTracked {
		t.Errorf("last regular bucket [%d, %d] does not end at MaxTracked %d", lo, hi, MaxTracked)
	}
	if next != math.MaxInt64+1 {
		t.Errorf("buckets end at %d, want 2^63", next-1)
	}
}

func TestRecordClampsNegative(t *testing.T) {
	h := New()
	h.Record(-5)
	h.Record(math.MinInt64)
	if h.Count() != 2 || h.Min() != 0 || h.Max() != 0 || h.Quantile(0.5) != 0 || h.Mean() != 0 {
		t.Errorf("negative samples: count %d min %d max %d p50 %d mean %v, want 2 and zeros",
			h.Count(), h.Min(), h.Max(), h.Quantile(0.5), h.Mean())
	}
}

// singleValues spans 0 ns to beyond MaxInt64/2, densely below ExactBelow and
// around bucket edges, and geometrically up to hours.
func singleValues() []int64 {
	vs := []int64{0, 1, 2, 127, 128, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025,
		int64(time.Microsecond), 12345, int64(time.Millisecond) + 7, int64(time.Second),
		int64(time.Minute), int64(time.Hour), 2 * int64(time.Hour), 4*int64(time.Hour) + 1,
		MaxTracked - 1, MaxTracked}
	for i := int64(0); i < ExactBelow; i++ {
		vs = append(vs, i)
	}
	for v := 1.0; v < float64(MaxTracked); v *= 1.0137 {
		vs = append(vs, int64(v))
	}
	return vs
}

func TestQuantileRelativeError(t *testing.T) {
	for _, v := range singleValues() {
		// Alone, the value is its own min and max, so every quantile is exact.
		h := New()
		h.Record(v)
		for _, q := range []float64{0, 0.5, 0.99, 1} {
			if got := h.Quantile(q); got != v {
				t.Fatalf("single %d: Quantile(%v) = %d, want exact", v, q, got)
			}
		}
		// Between 0 and MaxInt64 the clamp does not help: the median is the
		// bare bucket midpoint.
		h.Record(0)
		h.Record(math.MaxInt64)
		if got := h.Quantile(0.5); !withinBound(got, v) {
			t.Fatalf("bracketed %d: median %d off by %.4f%%, want ≤ %.4f%%",
				v, got, 100*math.Abs(float64(got-v))/float64(v), 100*relErrBound)
		}
	}
}

func TestOverflowBucket(t *testing.T) {
	tests := []int64{MaxTracked + 1, 10 * int64(time.Hour), 1 << 62, math.MaxInt64}
	for _, v := range tests {
		h := New()
		h.Record(v)
		if h.Quantile(0.5) != v || h.Max() != v || h.Min() != v || h.Mean() != float64(v) {
			t.Errorf("%d alone: p50 %d min %d max %d mean %v, want all exact",
				v, h.Quantile(0.5), h.Min(), h.Max(), h.Mean())
		}
		h.Record(1000)
		h.Record(v - 1)
		if got := h.Quantile(0.9); got != v {
			t.Errorf("%d with others: p90 = %d, want the max %d", v, got, v)
		}
	}
}

func TestQuantileEdges(t *testing.T) {
	h := New()
	if got := h.Quantile(0.5); got != 0 {
		t.Errorf("empty Quantile = %d, want 0", got)
	}
	for _, v := range []int64{5000, 777777, 123456789, 300} {
		h.Record(v)
	}
	tests := []struct {
		q    float64
		want int64
	}{
		{0, 300}, {-1, 300}, {math.NaN(), 300}, {1, 123456789}, {2, 123456789},
		{math.Inf(1), 123456789}, {math.Inf(-1), 300}, {1e-300, 300},
	}
	for _, tt := range tests {
		if got := h.Quantile(tt.q); got != tt.want {
			t.Errorf("Quantile(%v) = %d, want %d", tt.q, got, tt.want)
		}
	}
}

// distributions are the random sample sets percentiles are checked on.
var distributions = []struct {
	name string
	gen  func(r *rand.Rand) int64
}{
	{"uniform", func(r *rand.Rand) int64 { return 1000 + r.Int64N(10_000_000) }},
	{"uniform-small", func(r *rand.Rand) int64 { return r.Int64N(2000) }},
	{"exponential", func(r *rand.Rand) int64 { return int64(r.ExpFloat64() * 50_000) }},
	{"bimodal", func(r *rand.Rand) int64 {
		if r.IntN(10) < 8 {
			return max(0, int64(20_000+r.NormFloat64()*2_000))
		}
		return max(0, int64(2_000_000+r.NormFloat64()*300_000))
	}},
	{"lognormal-wide", func(r *rand.Rand) int64 {
		return min(int64(math.Exp(10+r.NormFloat64()*4)), MaxTracked)
	}},
}

// exactQuantile is the definition Quantile estimates: the ceil(q·n)-th
// smallest sample.
func exactQuantile(sorted []int64, q float64) int64 {
	r := int(math.Ceil(q * float64(len(sorted))))
	return sorted[min(max(r, 1), len(sorted))-1]
}

func TestQuantilesAgainstSorted(t *testing.T) {
	qs := []float64{0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999}
	for di, d := range distributions {
		t.Run(d.name, func(t *testing.T) {
			r := newRand(uint64(di))
			h := New()
			samples := make([]int64, 100_000)
			for i := range samples {
				samples[i] = d.gen(r)
				h.Record(samples[i])
			}
			slices.Sort(samples)
			for _, q := range qs {
				want := exactQuantile(samples, q)
				got := h.Quantile(q)
				if !withinBound(got, want) {
					t.Errorf("Quantile(%v) = %d, exact %d: off by %.4f%%",
						q, got, want, 100*math.Abs(float64(got-want))/float64(want))
				}
			}
			if h.Quantile(0) != samples[0] || h.Quantile(1) != samples[len(samples)-1] {
				t.Errorf("Quantile(0), Quantile(1) = %d, %d, want exact %d, %d",
					h.Quantile(0), h.Quantile(1), samples[0], samples[len(samples)-1])
			}
		})
	}
}

func TestMerge(t *testing.T) {
	r := newRand(42)
	all := New()
	parts := make([]*Histogram, 6)
	for k := range parts {
		parts[k] = New()
		if k == 3 {
			continue // one empty part
		}
		d := distributions[k%len(distributions)]
		for range 5000 + 1000*k {
			v := d.gen(r)
			if r.IntN(1000) == 0 {
				v = MaxTracked + r.Int64N(1<<50) // some overflow samples
			}
			parts[k].Record(v)
			all.Record(v)
		}
	}
	merged := New()
	for _, p := range parts {
		if err := merged.Merge(p); err != nil {
			t.Fatal(err)
		}
	}
	assertEqual(t, merged, all)

	// Merging into self doubles every count.
	twice := New()
	for range 2 {
		for _, p := range parts {
			if err := twice.Merge(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := merged.Merge(merged); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, merged, twice)

	// An empty receiver takes the other histogram as it is.
	e := New()
	if err := e.Merge(all); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, e, all)
}

func TestMergeOverflow(t *testing.T) {
	a, b := New(), New()
	a.Record(10)
	b.Record(20)
	b.count, b.counts[20] = math.MaxUint64, math.MaxUint64 // forged
	before := *a
	if err := a.Merge(b); err == nil {
		t.Fatal("merge past 2^64-1 samples: no error")
	}
	if !a.Equal(&before) {
		t.Error("failed merge changed the receiver")
	}
}

// assertEqual compares every field and bucket, naming the first difference.
func assertEqual(t *testing.T, got, want *Histogram) {
	t.Helper()
	if got.Equal(want) {
		return
	}
	t.Errorf("histograms differ: count %d/%d min %d/%d max %d/%d sum %v/%v sumSq %v/%v",
		got.count, want.count, got.Min(), want.Min(), got.max, want.max,
		got.sum, want.sum, got.sumSq, want.sumSq)
	for i := range got.counts {
		if got.counts[i] != want.counts[i] {
			t.Errorf("first differing bucket %d: %d, want %d", i, got.counts[i], want.counts[i])
			break
		}
	}
}

func TestReset(t *testing.T) {
	h := New()
	for v := range int64(10000) {
		h.Record(v * 997)
	}
	h.Reset()
	assertEqual(t, h, New())
	h.Record(42)
	if h.Min() != 42 || h.Max() != 42 || h.Count() != 1 {
		t.Errorf("after Reset and one record: min %d max %d count %d", h.Min(), h.Max(), h.Count())
	}
}

func TestZeroValueUsable(t *testing.T) {
	var h Histogram
	h.Record(1234)
	h.Record(99)
	if h.Min() != 99 || h.Max() != 1234 || h.Count() != 2 {
		t.Errorf("zero value: min %d max %d count %d, want 99 1234 2", h.Min(), h.Max(), h.Count())
	}
}

func TestRecordAllocs(t *testing.T) {
	h := New()
	v := int64(1)
	allocs := testing.AllocsPerRun(10000, func() {
		h.Record(v)
		v = v*3 + 1
		if v < 0 {
			v = -v
		}
	})
	if allocs != 0 {
		t.Errorf("Record allocates %v times per call, want 0", allocs)
	}
}

func BenchmarkRecord(b *testing.B) {
	r := newRand(7)
	vals := make([]int64, 1<<12)
	for i := range vals {
		vals[i] = int64(r.ExpFloat64() * 50_000)
	}
	h := New()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		h.Record(vals[i&(len(vals)-1)])
		i++
	}
}

func BenchmarkSummary(b *testing.B) {
	r := newRand(8)
	h := New()
	for range 100_000 {
		h.Record(int64(r.ExpFloat64() * 50_000))
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = h.Summary()
	}
}
