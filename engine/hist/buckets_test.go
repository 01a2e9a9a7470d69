package hist

import (
	"math"
	"slices"
	"testing"
)

type bucket struct {
	lo, hi int64
	n      uint64
}

func buckets(h *Histogram) []bucket {
	var out []bucket
	h.Buckets(func(lo, hi int64, n uint64) { out = append(out, bucket{lo, hi, n}) })
	return out
}

func TestBuckets(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []int64
		want   []bucket
	}{
		{"empty", nil, nil},
		{"exact", []int64{5, 0, 5}, []bucket{{0, 0, 1}, {5, 5, 2}}},
		{"exact edge", []int64{255, 256, 257}, []bucket{{255, 255, 1}, {256, 257, 2}}},
		{"linear", []int64{1003, 1000, 1004}, []bucket{{1000, 1003, 2}, {1004, 1007, 1}}},
		// 2^29 ≤ 1e9 < 2^30: buckets 2^22 ns wide, one straddling 1 s.
		{"one second", []int64{1e9}, []bucket{{238 << 22, 239<<22 - 1, 1}}},
		{"overflow", []int64{MaxTracked, MaxTracked + 1, math.MaxInt64}, []bucket{
			{MaxTracked + 1 - 1<<(maxBits-1-subBits), MaxTracked, 1}, {MaxTracked + 1, math.MaxInt64, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := New()
			for _, v := range tc.values {
				h.Record(v)
			}
			if got := buckets(h); !slices.Equal(got, tc.want) {
				t.Errorf("Buckets = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestBucketsCoverSamples checks on random samples that the buckets come
// in ascending order, hold every sample and sum to Count.
func TestBucketsCoverSamples(t *testing.T) {
	r := newRand(7)
	h := New()
	var vs []int64
	for range 10000 {
		v := int64(r.ExpFloat64() * 50e3)
		vs = append(vs, v)
		h.Record(v)
	}
	bs := buckets(h)
	var total uint64
	for i, b := range bs {
		if b.lo > b.hi || i > 0 && b.lo <= bs[i-1].hi {
			t.Fatalf("bucket %d %v out of order after %v", i, b, bs[max(i-1, 0)])
		}
		var n uint64
		for _, v := range vs {
			if v >= b.lo && v <= b.hi {
				n++
			}
		}
		if n != b.n {
			t.Errorf("bucket %v: %d samples lie in it", b, n)
		}
		total += b.n
	}
	if total != h.Count() {
		t.Errorf("buckets sum to %d, Count is %d", total, h.Count())
	}
}
