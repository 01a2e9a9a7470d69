package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// normal returns a seeded sampler of N(mu, sd²): plain numbers, no sockets,
// the same sequence on every run.
func normal(seed uint64, mu, sd float64) func() float64 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return func() float64 { return mu + sd*r.NormFloat64() }
}

// ruleCoverage runs the confidence procedure of spec trials times on sample and
// returns the fraction of intervals that hold mu, and the mean number of
// iterations run.
func ruleCoverage(t *testing.T, spec ConfidenceSpec, sample func() float64, mu float64, trials int) (cov, iters float64) {
	t.Helper()
	p, err := NewProcedure(spec)
	if err != nil {
		t.Fatal(err)
	}
	hit, runs := 0, 0
	for range trials {
		c, err := p.Sample(sample)
		if err != nil {
			t.Fatal(err)
		}
		if iv := c.Intervals[0]; iv.Low <= mu && mu <= iv.High {
			hit++
		}
		runs += c.Iterations
	}
	return float64(hit) / float64(trials), float64(runs) / float64(trials)
}

// TestNetperfRuleLosesCoverage reports how often netperf's rule (run until
// the interval is narrow enough) covers the true mean, at the settings of
// issue 17, with 1 % noise. It stops when the sample happens to look tight,
// so it covers less often than its level: that much is asserted; the
// figures themselves are only logged.
func TestNetperfRuleLosesCoverage(t *testing.T) {
	const trials = 20000
	for i, s := range []ConfidenceSpec{
		{Level: 95, Width: 2, Min: 3, Max: 30},
		{Level: 95, Width: 5, Min: 2, Max: 10},
		{Level: 99, Width: 2, Min: 2, Max: 30},
	} {
		cov, iters := ruleCoverage(t, s, normal(uint64(17+i), 100, 1), 100, trials)
		t.Logf("netperf rule, level %v, width %v, min %d, max %d: coverage %.2f %% over %d trials (%.1f iterations on average)",
			s.Level, s.Width, s.Min, s.Max, 100*cov, trials, iters)
		if cov >= s.Level/100 {
			t.Errorf("level %v, width %v, min %d: coverage %.2f %%, not below the level", s.Level, s.Width, s.Min, 100*cov)
		}
	}
}

// TestTwoStageCoversAtItsLevel: Stein's two-stage procedure covers the true
// mean at its level, within ±1 % over 20,000 seeded trials, at levels 90,
// 95 and 99, with the same noise and target as the netperf rule above (at
// 99 the plan exceeds max, and the capped interval still covers).
func TestTwoStageCoversAtItsLevel(t *testing.T) {
	const trials = 20000
	for i, level := range []float64{90, 95, 99} {
		s := ConfidenceSpec{Level: level, Width: 2, Min: 3, Max: 30, Method: MethodTwoStage}
		cov, iters := ruleCoverage(t, s, normal(uint64(100+i), 100, 1), 100, trials)
		t.Logf("two_stage, level %v, width 2, min 3, max 30: coverage %.2f %% over %d trials (%.1f iterations on average)",
			level, 100*cov, trials, iters)
		if math.Abs(100*cov-level) > 1 {
			t.Errorf("level %v: coverage %.2f %%, want within 1 %% of the level", level, 100*cov)
		}
	}
}

// TestTwoStagePlansFromTheFirstStage checks the arithmetic by hand: a first
// stage of 99, 100, 101 has mean 100 and s = 1; at level 95, t(2) =
// 4.3027, and a full width of 2 % (half-width 1) needs ⌈4.3027²⌉ = 19
// iterations; the interval over all 19 uses s = 1 and t(2).
func TestTwoStagePlansFromTheFirstStage(t *testing.T) {
	vals := []float64{99, 100, 101}
	iterate := func(i int) ([]float64, error) {
		if i <= len(vals) {
			return []float64{vals[i-1]}, nil
		}
		return []float64{100}, nil
	}
	c, err := RunConfidence(ConfidenceSpec{Level: 95, Width: 2, Min: 3, Max: 30, Method: MethodTwoStage}, iterate)
	if err != nil {
		t.Fatal(err)
	}
	tq, _ := TCritical(95, 2)
	half := tq / math.Sqrt(19)
	iv := c.Intervals[0]
	if c.Method != MethodTwoStage || c.Planned != 19 || c.Iterations != 19 || !c.Met ||
		math.Abs(iv.HalfWidth-half) > 1e-12 || iv.Mean != 100 || math.Abs(c.Widths[0]-2*half) > 1e-12 {
		t.Errorf("method %s, planned %d, ran %d, met %v, interval %+v; want 19, 19, half-width %v", c.Method, c.Planned, c.Iterations, c.Met, iv, half)
	}
	// The same with max 10: capped, not met, and the interval still uses
	// the first stage's s over the 10 run.
	c, err = RunConfidence(ConfidenceSpec{Level: 95, Width: 2, Min: 3, Max: 10, Method: MethodTwoStage}, iterate)
	if err != nil {
		t.Fatal(err)
	}
	if c.Planned != 19 || c.Iterations != 10 || c.Met || math.Abs(c.Intervals[0].HalfWidth-tq/math.Sqrt(10)) > 1e-12 {
		t.Errorf("capped: planned %d, ran %d, met %v, half-width %v", c.Planned, c.Iterations, c.Met, c.Intervals[0].HalfWidth)
	}
	c, _ = RunConfidence(ConfidenceSpec{Level: 95, Width: 2, Min: 3, Max: 30}, iterate)
	if c.Method != MethodNetperf || c.Planned != 0 {
		t.Errorf("default: method %q, planned %d", c.Method, c.Planned)
	}
}

// TestSteinRuns: the bounds of the plan.
func TestSteinRuns(t *testing.T) {
	for _, c := range []struct {
		t, s0, half float64
		n0, limit   int
		want        int
	}{
		{4.3027, 1, 1, 3, 100, 19},
		{4.3027, 0, 1, 3, 100, 3},       // constant first stage: no more runs
		{4.3027, 0.1, 1, 3, 100, 3},     // already narrow enough
		{4.3027, 1, 0, 3, 100, 101},     // a zero target: more than limit
		{4.3027, 1e200, 1, 3, 100, 101}, // overflow: more than limit
	} {
		if got := SteinRuns(c.t, c.s0, c.half, c.n0, c.limit); got != c.want {
			t.Errorf("SteinRuns(%v, %v, %v, %d, %d) = %d, want %d", c.t, c.s0, c.half, c.n0, c.limit, got, c.want)
		}
	}
	if err := (ConfidenceSpec{Level: 95, Width: 2, Min: 3, Max: 30, Method: "stein"}).Validate(); err == nil ||
		err.Error() != `confidence: method must be "netperf" or "two_stage", got "stein"` {
		t.Errorf("bad method: %v", err)
	}
}
