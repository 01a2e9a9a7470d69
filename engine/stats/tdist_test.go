package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// publishedT is the standard two-sided Student-t table (as printed in
// statistics textbooks and in netperf's confid() for 95 and 99 %), indexed
// by df−1, rounded to three decimals.
var publishedT = []struct {
	df            int
	t90, t95, t99 float64
}{
	{1, 6.314, 12.706, 63.657},
	{2, 2.920, 4.303, 9.925},
	{3, 2.353, 3.182, 5.841},
	{4, 2.132, 2.776, 4.604},
	{5, 2.015, 2.571, 4.032},
	{6, 1.943, 2.447, 3.707},
	{7, 1.895, 2.365, 3.499},
	{8, 1.860, 2.306, 3.355},
	{9, 1.833, 2.262, 3.250},
	{10, 1.812, 2.228, 3.169},
	{11, 1.796, 2.201, 3.106},
	{12, 1.782, 2.179, 3.055},
	{13, 1.771, 2.160, 3.012},
	{14, 1.761, 2.145, 2.977},
	{15, 1.753, 2.131, 2.947},
	{16, 1.746, 2.120, 2.921},
	{17, 1.740, 2.110, 2.898},
	{18, 1.734, 2.101, 2.878},
	{19, 1.729, 2.093, 2.861},
	{20, 1.725, 2.086, 2.845},
	{21, 1.721, 2.080, 2.831},
	{22, 1.717, 2.074, 2.819},
	{23, 1.714, 2.069, 2.807},
	{24, 1.711, 2.064, 2.797},
	{25, 1.708, 2.060, 2.787},
	{26, 1.706, 2.056, 2.779},
	{27, 1.703, 2.052, 2.771},
	{28, 1.701, 2.048, 2.763},
	{29, 1.699, 2.045, 2.756},
	{30, 1.697, 2.042, 2.750},
}

func TestTCriticalMatchesPublishedTable(t *testing.T) {
	if len(publishedT) != 30 {
		t.Fatalf("table has %d rows, want 30", len(publishedT))
	}
	for i, row := range publishedT {
		if row.df != i+1 {
			t.Fatalf("row %d has df %d", i, row.df)
		}
		for _, c := range []struct{ level, want float64 }{{90, row.t90}, {95, row.t95}, {99, row.t99}} {
			got, err := TCritical(c.level, row.df)
			if err != nil {
				t.Fatalf("TCritical(%v, %d): %v", c.level, row.df, err)
			}
			// The table is rounded to 3 decimals: the exact value lies
			// within half a unit of the last place.
			if !near(got, c.want, 0.0005+1e-12) {
				t.Errorf("TCritical(%v, %d) = %.5f, table says %.3f", c.level, row.df, got, c.want)
			}
		}
	}
}

func TestTCriticalOtherLevels(t *testing.T) {
	tests := []struct {
		level float64
		df    int
		want  float64
		tol   float64
	}{
		// df = 1 is the Cauchy distribution: t = tan(π·level/200).
		{50, 1, 1, 1e-9},
		{80, 1, math.Tan(math.Pi * 0.4), 1e-9},
		// df = 2 has a closed form: t = p'/√((1−p'²)/2), p' = level/100.
		{80, 2, 0.8 / math.Sqrt((1-0.64)/2), 1e-9},
		// Large df approaches the normal: z(0.975) = 1.959964.
		{95, 1000000, 1.959964, 1e-5},
	}
	for _, tc := range tests {
		got, err := TCritical(tc.level, tc.df)
		if err != nil || !near(got, tc.want, tc.tol) {
			t.Errorf("TCritical(%v, %d) = %v, %v; want %v", tc.level, tc.df, got, err, tc.want)
		}
	}
}

func TestCINetperfExample(t *testing.T) {
	// netperf -l 1 -i 3,3 -I 95,10 -T 0,0 printed Conf_itvl 26.3 % after two
	// iterations and THROUGHPUT_CONFID=5.346 after three (notes §2.2, §3.2).
	vals := []float64{196599.632932, 200704.397978, 197639.905042}

	iv, err := CI(vals, 95)
	if err != nil {
		t.Fatal(err)
	}
	if !near(iv.Mean, 198314.65, 0.005) {
		t.Errorf("mean = %v, want 198314.65", iv.Mean)
	}
	if sd, _ := Stddev(vals); !near(sd, 2133.95, 0.005) {
		t.Errorf("stddev = %v, want 2133.95", sd)
	}
	if got := math.Round(iv.WidthPct*1000) / 1000; got != 5.346 {
		t.Errorf("width = %v %%, want 5.346 %% (netperf THROUGHPUT_CONFID)", iv.WidthPct)
	}
	if !near(iv.High-iv.Low, 2*iv.HalfWidth, 1e-9) || !near(iv.Mean-iv.Low, iv.HalfWidth, 1e-9) {
		t.Errorf("inconsistent interval %+v", iv)
	}
	if iv.N != 3 || iv.Level != 95 {
		t.Errorf("N, Level = %d, %v; want 3, 95", iv.N, iv.Level)
	}

	iv2, err := CI(vals[:2], 95)
	if err != nil {
		t.Fatal(err)
	}
	if got := math.Round(iv2.WidthPct*100) / 100; got != 26.25 {
		t.Errorf("two-iteration width = %v %%, want 26.25 %%", iv2.WidthPct)
	}
}

func TestCIHandExample(t *testing.T) {
	// 98, 100, 102, 100: mean 100; squared deviations 4+0+4+0 = 8, so
	// s² = 8/3 and s = 1.6329932. t(95 %, 3 df) = 3.1824463 (table 3.182).
	// Half width t·s/√4 = 3.1824463·1.6329932/2 = 2.5984565; the full width
	// is 5.1969131, i.e. 5.197 % of the mean 100.
	iv, err := CI([]float64{98, 100, 102, 100}, 95)
	if err != nil {
		t.Fatal(err)
	}
	if !near(iv.Mean, 100, 1e-12) || !near(iv.HalfWidth, 2.5984565, 1e-6) ||
		!near(iv.Low, 97.4015435, 1e-6) || !near(iv.High, 102.5984565, 1e-6) ||
		!near(iv.WidthPct, 5.1969131, 1e-6) {
		t.Errorf("CI = %+v", iv)
	}
	// A negative mean uses |mean|: same width.
	neg, err := CI([]float64{-98, -100, -102, -100}, 95)
	if err != nil || !near(neg.WidthPct, iv.WidthPct, 1e-12) || !near(neg.Low, -102.5984565, 1e-6) {
		t.Errorf("negative CI = %+v, %v", neg, err)
	}
}

// coverage draws trials normal samples of size n (mean mu, sd sigma) and
// returns the fraction of level-percent intervals that contain mu.
func coverage(t *testing.T, r *rand.Rand, level float64, n, trials int) float64 {
	const mu, sigma = 1000.0, 37.0
	xs := make([]float64, n)
	hit := 0
	for range trials {
		for i := range xs {
			xs[i] = mu + sigma*r.NormFloat64()
		}
		iv, err := CI(xs, level)
		if err != nil {
			t.Fatal(err)
		}
		if iv.Low <= mu && mu <= iv.High {
			hit++
		}
	}
	return float64(hit) / float64(trials)
}

func TestCICoverage(t *testing.T) {
	t.Parallel() // the slowest tests; run them side by side
	// 95 % and 99 % intervals from normal samples of 5 must contain the true
	// mean 95 ± 1 % and 99 ± 1 % of the time. That bound alone would still
	// pass t with df = n instead of n−1 (93.9 % and 98.5 % with this
	// seed), so the coverage must also lie within 4 standard errors
	// of the level: with 40,000 trials √(p(1−p)/40000) is 0.11 % at 95 %
	// and 0.05 % at 99 %, bounds of 0.44 % and 0.20 %.
	const n, trials = 5, 40000
	r := rand.New(rand.NewPCG(2024, 5))
	for _, level := range []float64{95, 99} {
		got := 100 * coverage(t, r, level, n, trials)
		p := level / 100
		se := 100 * math.Sqrt(p*(1-p)/trials)
		if math.Abs(got-level) > 1 || math.Abs(got-level) > 4*se {
			t.Errorf("coverage at %v %% with n=%d: %.2f %%, want %v ± %.2f %%", level, n, got, level, 4*se)
		}
	}
}

func TestTDistErrors(t *testing.T) {
	tcrit := func(level float64, df int) func() error {
		return func() error { _, err := TCritical(level, df); return err }
	}
	ci := func(xs []float64, level float64) func() error {
		return func() error { _, err := CI(xs, level); return err }
	}
	tests := []struct {
		name string
		fn   func() error
		want string
	}{
		{"t level 0", tcrit(0, 3), "confidence level must be between 0 and 100 percent (exclusive), got 0"},
		{"t level 100", tcrit(100, 3), "got 100"},
		{"t level NaN", tcrit(math.NaN(), 3), "got NaN"},
		{"t level negative", tcrit(-95, 3), "got -95"},
		{"t df 0", tcrit(95, 0), "needs at least 1 degree of freedom, got 0"},
		{"t df negative", tcrit(95, -4), "got -4"},
		{"ci empty", ci(nil, 95), "confidence interval needs at least 2 values, got 0"},
		{"ci one", ci([]float64{5}, 95), "needs at least 2 values, got 1"},
		{"ci level", ci([]float64{1, 2}, 100), "confidence level must be between 0 and 100"},
		{"ci NaN", ci([]float64{1, math.NaN()}, 95), "value at index 1 is NaN"},
		{"ci Inf", ci([]float64{math.Inf(1), 1}, 95), "value at index 0 is +Inf"},
		{"ci zero mean", ci([]float64{-1, 1}, 95), "mean is 0, so a width in percent of the mean is undefined"},
		{"ci all zero", ci([]float64{0, 0, 0}, 95), "mean is 0"},
		{"ci overflow", ci([]float64{math.MaxFloat64, math.MaxFloat64}, 95), "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fn()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
