package result

import (
	"testing"

	"netscript/engine/hist"
)

// withHist returns a result whose histogram recorded n samples of v ns.
func withHist(samples map[int64]int) *Result {
	h := hist.New()
	for v, n := range samples {
		for range n {
			h.Record(v)
		}
	}
	return &Result{Hist: h, Latency: LatencyOf(h)}
}

func TestMergeLatencyIsLatencyOfAllSamples(t *testing.T) {
	// Run 1: 99 fast transactions and 1 slow one; run 2: 100 fast ones.
	// Over all 200 the p99 is fast (rank 198 of 200 is fast) while the
	// average of the two per-run p99s is not: merging must not average.
	a := withHist(map[int64]int{10_000: 99, 5_000_000: 1})
	b := withHist(map[int64]int{10_000: 100})
	want := withHist(map[int64]int{10_000: 199, 5_000_000: 1})

	got, err := MergeLatency([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if *got != *want.Latency {
		t.Fatalf("merged latency\n got  %+v\n want %+v", *got, *want.Latency)
	}
	if got.Count != 200 || got.Max != 5000 {
		t.Fatalf("count %d max %v, want 200 and 5000 µs", got.Count, got.Max)
	}
	if avg := (a.Latency.P99 + b.Latency.P99) / 2; got.P99 == avg {
		t.Fatalf("p99 %v equals the average of per-run p99s", got.P99)
	}
	// The inputs are unchanged.
	if a.Hist.Count() != 100 || b.Hist.Count() != 100 {
		t.Fatalf("inputs changed: %d, %d", a.Hist.Count(), b.Hist.Count())
	}
}

func TestMergeLatencyNothingToMerge(t *testing.T) {
	a := withHist(map[int64]int{1000: 1})
	cases := []struct {
		name string
		rs   []*Result
	}{
		{"no results", nil},
		{"a result without a histogram (stream test)", []*Result{a, {}}},
		{"a nil result", []*Result{nil, a}},
	}
	for _, c := range cases {
		got, err := MergeLatency(c.rs)
		if err != nil || got != nil {
			t.Errorf("%s: got %v, %v; want nil, nil", c.name, got, err)
		}
	}
}
