package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCompareHandComputed(t *testing.T) {
	tests := []struct {
		name            string
		a, b            []float64
		level           float64
		delta, deltaPct float64
		low, high, df   float64
		significant     bool
	}{
		// a = 1,2,3 and b = 4,5,6: means 2 and 5, both s² = 1, so the
		// squared standard errors are 1/3 each, se = √(2/3) = 0.816497,
		// df = (2/3)² / ((1/3)²/2 + (1/3)²/2) = 4, t(95 %, 4) = 2.776445,
		// half width 2.776445·0.816497 = 2.266966.
		{"equal variances", []float64{1, 2, 3}, []float64{4, 5, 6}, 95,
			3, 150, 3 - 2.266966, 3 + 2.266966, 4, true},
		// Reversed: the interval is mirrored, DeltaPct relative to 5.
		{"reversed", []float64{4, 5, 6}, []float64{1, 2, 3}, 95,
			-3, -60, -3 - 2.266966, -3 + 2.266966, 4, true},
		// a = 10, 12 (s² = 2, n 2) and b = 20, 30, 40 (s² = 100, n 3):
		// se² = 1 + 33.3333 = 34.3333; Welch–Satterthwaite
		// df = 34.3333² / (1²/1 + 33.3333²/2) = 1178.78/556.556 = 2.117988.
		// se = √34.3333 = 5.8595 and t(99 %, 2.118) lies between
		// t(99 %, 3) = 5.841 and t(99 %, 2) = 9.925, so the half width is
		// at least 5.841·5.8595 = 34.2 > Delta = 19: the interval holds 0.
		{"unequal variances", []float64{10, 12}, []float64{20, 30, 40}, 99,
			19, 172.727273, math.NaN(), math.NaN(), 2.117988, false},
		// Both constant: the interval is the point Delta.
		{"both constant differ", []float64{5, 5}, []float64{6, 6, 6}, 95,
			1, 20, 1, 1, 3, true},
		{"both constant equal", []float64{5, 5}, []float64{5, 5}, 95,
			0, 0, 0, 0, 2, false},
		// One constant: Welch's df is the other's n−1 = 2, t(95 %, 2) =
		// 4.302653, se = √(1/3), half width 2.484138.
		{"one constant", []float64{5, 5, 5}, []float64{1, 2, 3}, 95,
			-3, -60, -3 - 2.484138, -3 + 2.484138, 2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a0, b0 := slices.Clone(tc.a), slices.Clone(tc.b)
			c, err := Compare(tc.a, tc.b, tc.level)
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, got, want float64) {
				if !math.IsNaN(want) && !near(got, want, 1e-5) {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("Delta", c.Delta, tc.delta)
			check("DeltaPct", c.DeltaPct, tc.deltaPct)
			check("Low", c.Low, tc.low)
			check("High", c.High, tc.high)
			check("DF", c.DF, tc.df)
			check("MeanB-MeanA", c.MeanB-c.MeanA, tc.delta)
			if c.Significant != tc.significant {
				t.Errorf("Significant = %v, want %v (interval [%v, %v])", c.Significant, tc.significant, c.Low, c.High)
			}
			if c.Level != tc.level || c.Low > c.Delta || c.High < c.Delta {
				t.Errorf("inconsistent comparison %+v", c)
			}
			if !slices.Equal(a0, tc.a) || !slices.Equal(b0, tc.b) {
				t.Error("inputs modified")
			}
		})
	}
}

// normals fills xs with mean mu and standard deviation sigma.
func normals(r *rand.Rand, xs []float64, mu, sigma float64) {
	for i := range xs {
		xs[i] = mu + sigma*r.NormFloat64()
	}
}

func TestCompareFalsePositiveRate(t *testing.T) {
	t.Parallel() // the slowest tests; run them side by side
	// Two identical distributions: the interval should exclude 0 in
	// 100 − level percent of trials. With 5,000 trials the standard error of
	// that rate p is √(p(1−p)/5000): 0.42 % at 10 %, 0.31 % at 5 %, 0.14 %
	// at 1 %. Allow 4 standard errors plus 0.2 % for Welch's df being an
	// approximation (with equal n and variances it is slightly
	// conservative). An interval using z instead of t (6.6 % false
	// positives at 95 % with 18 df) would fail.
	const trials, n = 5000, 10
	r := rand.New(rand.NewPCG(99, 1))
	a, b := make([]float64, n), make([]float64, n)
	for _, level := range []float64{90, 95, 99} {
		hits := 0
		for range trials {
			normals(r, a, 1000, 10)
			normals(r, b, 1000, 10)
			c, err := Compare(a, b, level)
			if err != nil {
				t.Fatal(err)
			}
			if c.Significant {
				hits++
			}
		}
		p := 1 - level/100
		rate := float64(hits) / trials
		tol := 4*math.Sqrt(p*(1-p)/trials) + 0.002
		t.Logf("level %v: %.2f %%", level, 100*rate)
		if math.Abs(rate-p) > tol {
			t.Errorf("level %v: significant in %.2f %% of identical pairs, want %.1f ± %.2f %%", level, 100*rate, 100*p, 100*tol)
		}
	}
}

func TestComparePower(t *testing.T) {
	// B is 5 % faster with 1 % noise, 10 runs each: Delta ≈ 5 with a
	// standard error of √(0.2) ≈ 0.45, t ≈ 11 — the shift must be found in
	// at least 99 % of trials (in practice all of them).
	const trials, n = 2000, 10
	r := rand.New(rand.NewPCG(3, 4))
	a, b := make([]float64, n), make([]float64, n)
	found := 0
	for range trials {
		normals(r, a, 100, 1)
		normals(r, b, 105, 1)
		c, err := Compare(a, b, 95)
		if err != nil {
			t.Fatal(err)
		}
		if c.Significant && c.Delta > 0 {
			found++
		}
	}
	if rate := float64(found) / trials; rate < 0.99 {
		t.Errorf("5 %% shift found in %.1f %% of trials, want ≥ 99 %%", 100*rate)
	}
}

func TestCompareErrors(t *testing.T) {
	ok := []float64{1, 2, 3}
	tests := []struct {
		name  string
		a, b  []float64
		level float64
		want  string
	}{
		{"a empty", nil, ok, 95, "compare: a needs at least 2 values to estimate its noise, got 0"},
		{"b one", ok, []float64{1}, 95, "compare: b needs at least 2 values to estimate its noise, got 1"},
		{"level 0", ok, ok, 0, "compare: confidence level must be between 0 and 100 percent (exclusive), got 0"},
		{"level 100", ok, ok, 100, "got 100"},
		{"NaN in a", []float64{1, math.NaN()}, ok, 95, "compare: a: value at index 1 is NaN"},
		{"Inf in b", ok, []float64{math.Inf(-1), 1}, 95, "compare: b: value at index 0 is -Inf"},
		{"mean a zero", []float64{-1, 1}, ok, 95, "compare: mean of a is 0"},
		// A tiny baseline: the difference in percent of it overflows.
		{"overflow", []float64{1e-300, 2e-300}, []float64{1e10, 2e10}, 95, "difference of the means overflows"},
		{"too large", []float64{math.MaxFloat64, math.MaxFloat64}, ok, 95, "too large in magnitude"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compare(tc.a, tc.b, tc.level)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestABBA(t *testing.T) {
	tests := []struct {
		runs int
		want []int
	}{
		{-1, []int{}},
		{0, []int{}},
		{1, []int{0, 1}},
		{2, []int{0, 1, 1, 0}},
		{3, []int{0, 1, 1, 0, 0, 1}},
		{4, []int{0, 1, 1, 0, 0, 1, 1, 0}},
	}
	for _, tc := range tests {
		if got := ABBA(tc.runs); !slices.Equal(got, tc.want) {
			t.Errorf("ABBA(%d) = %v, want %v", tc.runs, got, tc.want)
		}
	}
	// For an even number of runs A and B have the same mean position, so
	// a linear drift adds the same amount to both.
	for runs := 1; runs <= 50; runs++ {
		order := ABBA(runs)
		var count, pos [2]int
		for i, which := range order {
			count[which]++
			pos[which] += i
		}
		if count[0] != runs || count[1] != runs {
			t.Fatalf("ABBA(%d) runs A %d and B %d times", runs, count[0], count[1])
		}
		if runs%2 == 0 && pos[0] != pos[1] {
			t.Errorf("ABBA(%d): position sums A %d, B %d", runs, pos[0], pos[1])
		}
	}
	if got := len(ABBA(1 << 60)); got != 2*MaxIterationsLimit {
		t.Errorf("huge ABBA has %d entries, want the clamp %d", got, 2*MaxIterationsLimit)
	}
}
