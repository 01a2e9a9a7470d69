package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// near reports whether got is within tol of want.
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol
}

func TestMeanStddevMedian(t *testing.T) {
	tests := []struct {
		name             string
		xs               []float64
		mean, sd, median float64
		skipSD           bool
	}{
		// 2,4,4,4,5,5,7,9: mean 5, squared deviations sum 32, 32/7.
		{"textbook", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7), 4.5, false},
		// Odd count: the median is the middle value of the sorted list.
		{"odd unsorted", []float64{9, 1, 5}, 5, 4, 5, false},
		// A single value has a mean and median but no sample spread.
		{"single", []float64{42}, 42, 0, 42, true},
		// Constant data: zero spread, not NaN.
		{"constant", []float64{3, 3, 3}, 3, 0, 3, false},
		// Negative values.
		{"negative", []float64{-1, -3}, -2, math.Sqrt2, -2, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := slices.Clone(tc.xs)
			m, err := Mean(tc.xs)
			if err != nil || !near(m, tc.mean, 1e-12) {
				t.Errorf("Mean = %v, %v; want %v", m, err, tc.mean)
			}
			md, err := Median(tc.xs)
			if err != nil || !near(md, tc.median, 1e-12) {
				t.Errorf("Median = %v, %v; want %v", md, err, tc.median)
			}
			if !tc.skipSD {
				sd, err := Stddev(tc.xs)
				if err != nil || !near(sd, tc.sd, 1e-12) {
					t.Errorf("Stddev = %v, %v; want %v", sd, err, tc.sd)
				}
			}
			if !slices.Equal(orig, tc.xs) {
				t.Errorf("input modified: %v, was %v", tc.xs, orig)
			}
		})
	}
}

func TestPercentileHandComputed(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		q    float64
		want float64
	}{
		// rank 0.25·3 = 0.75: 1 + 0.75·(2−1).
		{"brief example", []float64{1, 2, 3, 4}, 25, 1.75},
		// Same data unsorted: the result depends only on the values.
		{"unsorted", []float64{4, 1, 3, 2}, 25, 1.75},
		// rank 1.5: halfway between 2 and 3.
		{"median of four", []float64{1, 2, 3, 4}, 50, 2.5},
		// rank 2.25: 3 + 0.25.
		{"q75 of four", []float64{1, 2, 3, 4}, 75, 3.25},
		{"q0 is min", []float64{5, -2, 8}, 0, -2},
		{"q100 is max", []float64{5, -2, 8}, 100, 8},
		// Wikipedia's PERCENTILE.INC (C = 1) example: rank 0.4·4 = 1.6,
		// 20 + 0.6·(35−20) = 29.
		{"wikipedia q40", []float64{15, 20, 35, 40, 50}, 40, 29},
		// rank 0.05·4 = 0.2: 15 + 0.2·5 = 16.
		{"wikipedia q5", []float64{15, 20, 35, 40, 50}, 5, 16},
		// numpy docs: np.percentile([[10, 7, 4], [3, 2, 1]], 50) == 3.5.
		{"numpy docs median", []float64{10, 7, 4, 3, 2, 1}, 50, 3.5},
		// rank 0.9·9 = 8.1: 9 + 0.1·(10−9).
		{"p90 of 1..10", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90, 9.1},
		// rank 0.99·9 = 8.91: 9 + 0.91.
		{"p99 of 1..10", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 99, 9.91},
		// rank 0.33: 0 + 0.33·10.
		{"two values", []float64{0, 10}, 33, 3.3},
		{"single value", []float64{7}, 90, 7},
		// Equal neighbours give exactly their value, not a rounding of it.
		{"equal neighbours", []float64{0.1, 0.1, 0.1}, 37, 0.1},
		// Opposite extremes: interpolating must not overflow.
		{"extremes", []float64{-math.MaxFloat64, math.MaxFloat64}, 50, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := slices.Clone(tc.xs)
			got, err := Percentile(tc.xs, tc.q)
			if err != nil {
				t.Fatalf("Percentile(%v, %v): %v", tc.xs, tc.q, err)
			}
			if !near(got, tc.want, 1e-12) {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tc.xs, tc.q, got, tc.want)
			}
			if !slices.Equal(orig, tc.xs) {
				t.Errorf("input modified: %v, was %v", tc.xs, orig)
			}
		})
	}
}

// numpyLinear is numpy's default percentile (method="linear", Hyndman and
// Fan type 7) written the way its documentation states it, 1-based:
// h = (n−1)·p + 1, Q = x⌊h⌋ + (h − ⌊h⌋)·(x⌊h⌋+1 − x⌊h⌋), with x⌊h⌋+1 = x_n at
// the top.
func numpyLinear(xs []float64, q float64) float64 {
	x := slices.Clone(xs)
	slices.Sort(x)
	n := len(x)
	h := float64(n-1)*q/100 + 1
	fh := math.Floor(h)
	lo := x[int(fh)-1]
	hi := lo
	if int(fh) < n {
		hi = x[int(fh)]
	}
	return lo + (h-fh)*(hi-lo)
}

func TestPercentileMatchesNumpyDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 2000 {
		n := 1 + r.IntN(40)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = r.NormFloat64()*100 + 50
		}
		q := r.Float64() * 100
		if trial%10 == 0 {
			q = float64(r.IntN(101)) // whole percentiles, incl. 0 and 100
		}
		got, err := Percentile(xs, q)
		if err != nil {
			t.Fatal(err)
		}
		if want := numpyLinear(xs, q); !near(got, want, 1e-9) {
			t.Fatalf("Percentile(%v, %v) = %v, numpy definition gives %v", xs, q, got, want)
		}
		if q == 50 {
			if md, _ := Median(xs); md != got {
				t.Fatalf("Median %v != Percentile 50 %v", md, got)
			}
		}
	}
}

func TestDescribeErrors(t *testing.T) {
	mean := func(xs []float64) error { _, err := Mean(xs); return err }
	sd := func(xs []float64) error { _, err := Stddev(xs); return err }
	median := func(xs []float64) error { _, err := Median(xs); return err }
	pct := func(q float64) func([]float64) error {
		return func(xs []float64) error { _, err := Percentile(xs, q); return err }
	}
	tests := []struct {
		name string
		fn   func([]float64) error
		xs   []float64
		want string
	}{
		{"mean empty", mean, nil, "mean of an empty list"},
		{"mean NaN", mean, []float64{1, math.NaN()}, "mean: value at index 1 is NaN"},
		{"mean +Inf", mean, []float64{math.Inf(1)}, "mean: value at index 0 is +Inf"},
		{"mean overflow", mean, []float64{math.MaxFloat64, math.MaxFloat64}, "mean overflows"},
		{"stddev empty", sd, []float64{}, "stddev of an empty list"},
		{"stddev one", sd, []float64{1}, "stddev needs at least 2 values, got 1"},
		{"stddev -Inf", sd, []float64{1, math.Inf(-1)}, "stddev: value at index 1 is -Inf"},
		{"median empty", median, nil, "median of an empty list"},
		{"median NaN", median, []float64{math.NaN()}, "median: value at index 0 is NaN"},
		{"percentile empty", pct(50), nil, "percentile of an empty list"},
		{"percentile q>100", pct(101), []float64{1}, "q must be in [0, 100], got 101"},
		{"percentile q<0", pct(-1), []float64{1}, "q must be in [0, 100], got -1"},
		{"percentile q NaN", pct(math.NaN()), []float64{1}, "q must be in [0, 100], got NaN"},
		{"percentile data NaN", pct(50), []float64{2, math.NaN()}, "percentile: value at index 1 is NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fn(tc.xs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
