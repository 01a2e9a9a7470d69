package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// script returns an iterate function that hands out rows[i−1] for iteration
// i, fails the test if called beyond the script, and returns failAt's error
// at iteration failAt (0: never).
func script(t *testing.T, rows [][]float64, failAt int, failErr error) func(int) ([]float64, error) {
	t.Helper()
	next := 1
	return func(i int) ([]float64, error) {
		if i != next {
			t.Fatalf("iterate called with i=%d, want %d", i, next)
		}
		next++
		if i == failAt {
			return nil, failErr
		}
		if i > len(rows) {
			t.Fatalf("iterate called for iteration %d, script has %d", i, len(rows))
		}
		return rows[i-1], nil
	}
}

// col turns a list of headline values into one-metric rows.
func col(vs ...float64) [][]float64 {
	rows := make([][]float64, len(vs))
	for i, v := range vs {
		rows[i] = []float64{v}
	}
	return rows
}

// repeat returns n copies of row.
func repeat(n int, row ...float64) [][]float64 {
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = slices.Clone(row)
	}
	return rows
}

// alternating returns n rows alternating between lo and hi: a headline
// that never converges to a few percent.
func alternating(n int, lo, hi float64) [][]float64 {
	rows := make([][]float64, n)
	for i := range rows {
		v := lo
		if i%2 == 1 {
			v = hi
		}
		rows[i] = []float64{v}
	}
	return rows
}

func TestRunConfidenceStoppingRule(t *testing.T) {
	tests := []struct {
		name       string
		spec       ConfidenceSpec
		rows       [][]float64
		iterations int
		met        bool
		widths     []float64 // achieved widths, checked to 1e-3 when set
	}{
		// Identical values: width 0 from iteration 2, but Min is 3.
		{"constant stops at min", ConfidenceSpec{Level: 99, Width: 5, Min: 3, Max: 10},
			col(100, 100, 100), 3, true, []float64{0}},
		// Min is honoured even when converged long before.
		{"min honoured", ConfidenceSpec{Level: 99, Width: 5, Min: 6, Max: 10},
			col(100, 100, 100, 100, 100, 100), 6, true, []float64{0}},
		// 100, 200, 100, 200, …: width stays far above 5 %.
		{"never converges stops at max", ConfidenceSpec{Level: 95, Width: 5, Min: 3, Max: 7},
			alternating(7, 100, 200), 7, false, nil},
		// Max == Min: exactly that many, converged or not.
		{"max equals min", ConfidenceSpec{Level: 95, Width: 5, Min: 4, Max: 4},
			alternating(4, 100, 200), 4, false, nil},
		// Widths after iterations 3, 4, 5 (values 100, 110, 100, 100, 100):
		// n=4: mean 102.5, s 5, 2·3.182446·5/√4/102.5 = 15.524 %;
		// n=5: mean 102, s √20, 2·2.776445·√20/√5/102 = 10.888 %.
		// With a target of 12 % the rule is first met at exactly 5.
		{"converges at exactly 5", ConfidenceSpec{Level: 95, Width: 12, Min: 3, Max: 10},
			col(100, 110, 100, 100, 100), 5, true, []float64{10.888}},
		// netperf -i 3,3 -I 95,10 on the worked example: 5.346 % ≤ 10 %.
		{"netperf example", ConfidenceSpec{Level: 95, Width: 10, Min: 3, Max: 3},
			col(196599.632932, 200704.397978, 197639.905042), 3, true, []float64{5.346}},
		// The same at -I 95,5 misses the target at max 3.
		{"netperf example missed", ConfidenceSpec{Level: 95, Width: 5, Min: 3, Max: 3},
			col(196599.632932, 200704.397978, 197639.905042), 3, false, []float64{5.346}},
		// CPU not measured (all zeros) does not block convergence.
		{"zero cpu does not block", ConfidenceSpec{Level: 99, Width: 5, Min: 3, Max: 10},
			repeat(3, 100, 0, 0), 3, true, []float64{0, 0, 0}},
		// netperf's own convention, −1 for unmeasured CPU: constant, width 0.
		{"minus one cpu does not block", ConfidenceSpec{Level: 99, Width: 5, Min: 3, Max: 10},
			repeat(3, 100, -1, -1), 3, true, []float64{0, 0, 0}},
		// A noisy second metric blocks although the headline is constant.
		{"noisy cpu blocks", ConfidenceSpec{Level: 99, Width: 5, Min: 3, Max: 6},
			[][]float64{{100, 10}, {100, 50}, {100, 10}, {100, 50}, {100, 10}, {100, 50}}, 6, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := RunConfidence(tc.spec, script(t, tc.rows, 0, nil))
			if err != nil {
				t.Fatal(err)
			}
			if c.Iterations != tc.iterations || c.Met != tc.met {
				t.Fatalf("Iterations, Met = %d, %v; want %d, %v (widths %v)", c.Iterations, c.Met, tc.iterations, tc.met, c.Widths)
			}
			if len(c.History) != c.Iterations-1 {
				t.Errorf("History has %d entries, want %d", len(c.History), c.Iterations-1)
			}
			if c.History[len(c.History)-1] != c.Widths[0] {
				t.Errorf("last History %v != headline width %v", c.History[len(c.History)-1], c.Widths[0])
			}
			for m := range c.Values {
				if len(c.Values[m]) != c.Iterations {
					t.Errorf("metric %d has %d values, want %d", m, len(c.Values[m]), c.Iterations)
				}
				if c.Intervals[m].N != c.Iterations {
					t.Errorf("metric %d interval N = %d", m, c.Intervals[m].N)
				}
			}
			if tc.widths != nil {
				for m, w := range tc.widths {
					if !near(c.Widths[m], w, 1e-3) {
						t.Errorf("width of metric %d = %v, want %v", m, c.Widths[m], w)
					}
				}
			}
			if !tc.met {
				for _, w := range c.Widths {
					if w > tc.spec.Width {
						return
					}
				}
				t.Errorf("Met false but no width above %v: %v", tc.spec.Width, c.Widths)
			}
		})
	}
}

func TestRunConfidenceHistory(t *testing.T) {
	// netperf's debug run: Conf_itvl 26.3 % after 2, 5.3 % after 3.
	spec := ConfidenceSpec{Level: 95, Width: 10, Min: 3, Max: 3}
	c, err := RunConfidence(spec, script(t, col(196599.632932, 200704.397978, 197639.905042), 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.History) != 2 || !near(c.History[0], 26.25, 0.005) || !near(c.History[1], 5.346, 0.0005) {
		t.Errorf("History = %v, want [26.25 5.346]", c.History)
	}
	if !near(c.Intervals[0].Mean, 198314.65, 0.005) {
		t.Errorf("mean = %v", c.Intervals[0].Mean)
	}
}

func TestRunConfidenceSecondMetricSettles(t *testing.T) {
	// CPU: 10, 50, then 30 forever. After n iterations the mean is 30 and
	// the squared deviations sum to 400+400 = 800, so s = √(800/(n−1)) and
	// the width is 2·t(n−1)·s/√n/30:
	//   n=20: 2·2.093·6.4889/4.4721/30 = 20.25 % (> 20, keep going)
	//   n=21: 2·2.086·6.3246/4.5826/30 = 19.19 % (≤ 20, stop)
	// The headline is constant, so the CPU metric alone decides: 21.
	spec := ConfidenceSpec{Level: 95, Width: 20, Min: 3, Max: 200}
	rows := [][]float64{{100, 10}, {100, 50}}
	rows = append(rows, repeat(198, 100, 30)...)
	c, err := RunConfidence(spec, script(t, rows, 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Met || c.Iterations != 21 {
		t.Fatalf("Met %v after %d iterations (widths %v), want met at 21", c.Met, c.Iterations, c.Widths)
	}
	if !near(c.Widths[1], 19.19, 0.005) {
		t.Errorf("cpu width %v, want 19.19", c.Widths[1])
	}
	// Cross-check with CI: one iteration fewer misses the target.
	prev, err := CI(c.Values[1][:c.Iterations-1], 95)
	if err != nil {
		t.Fatal(err)
	}
	last, err := CI(c.Values[1], 95)
	if err != nil {
		t.Fatal(err)
	}
	if prev.WidthPct <= spec.Width || last.WidthPct > spec.Width {
		t.Errorf("stopped at %d: width before %v, at stop %v, target %v", c.Iterations, prev.WidthPct, last.WidthPct, spec.Width)
	}
}

func TestRunConfidenceIterateError(t *testing.T) {
	boom := errors.New("connect 198.18.0.2:12866: connection refused")
	spec := ConfidenceSpec{Level: 99, Width: 5, Min: 3, Max: 10}
	c, err := RunConfidence(spec, script(t, repeat(10, 100, 7), 3, boom))
	if err == nil {
		t.Fatal("no error")
	}
	if !errors.Is(err, boom) {
		t.Errorf("error %v does not wrap the cause", err)
	}
	if !strings.Contains(err.Error(), "iteration 3") {
		t.Errorf("error %q does not name the iteration", err)
	}
	if c == nil {
		t.Fatal("no partial result")
	}
	if c.Iterations != 2 || !slices.Equal(c.Values[0], []float64{100, 100}) || !slices.Equal(c.Values[1], []float64{7, 7}) {
		t.Errorf("partial = %d iterations, values %v; want the two measured", c.Iterations, c.Values)
	}
	if len(c.Intervals) != 2 || len(c.History) != 1 || c.Met {
		t.Errorf("partial intervals %v, history %v, met %v", c.Intervals, c.History, c.Met)
	}

	// Failing at the first iteration: an empty partial result.
	c, err = RunConfidence(spec, script(t, nil, 1, boom))
	if !errors.Is(err, boom) || c == nil || c.Iterations != 0 || c.Values != nil {
		t.Errorf("first-iteration failure: %+v, %v", c, err)
	}
}

func TestConfidenceErrors(t *testing.T) {
	good := ConfidenceSpec{Level: 95, Width: 5, Min: 3, Max: 10}
	with := func(f func(*ConfidenceSpec)) ConfidenceSpec { s := good; f(&s); return s }
	tests := []struct {
		name  string
		spec  ConfidenceSpec
		rows  [][]float64
		want  string
		iters int // iterations recorded in the partial result, -1: no result
	}{
		{"level 0", with(func(s *ConfidenceSpec) { s.Level = 0 }), nil, "confidence: level must be between 0 and 100 percent (exclusive), got 0", -1},
		{"level 100", with(func(s *ConfidenceSpec) { s.Level = 100 }), nil, "confidence: level must be between 0 and 100 percent (exclusive), got 100", -1},
		{"level NaN", with(func(s *ConfidenceSpec) { s.Level = math.NaN() }), nil, "confidence: level", -1},
		{"width 0", with(func(s *ConfidenceSpec) { s.Width = 0 }), nil, "confidence: width must be a positive, finite percentage of the mean, got 0", -1},
		{"width negative", with(func(s *ConfidenceSpec) { s.Width = -5 }), nil, "confidence: width", -1},
		{"width Inf", with(func(s *ConfidenceSpec) { s.Width = math.Inf(1) }), nil, "confidence: width", -1},
		{"min 1", with(func(s *ConfidenceSpec) { s.Min = 1 }), nil, "confidence: min must be at least 2, got 1", -1},
		{"min 0", with(func(s *ConfidenceSpec) { s.Min, s.Max = 0, 0 }), nil, "confidence: min must be at least 2, got 0", -1},
		{"max below min", with(func(s *ConfidenceSpec) { s.Max = 2 }), nil, "confidence: max must be at least min (3), got 2", -1},
		{"max too large", with(func(s *ConfidenceSpec) { s.Max = 20000 }), nil, "confidence: max must be at most 10000, got 20000", -1},
		// Headline mean 0: a width in percent is undefined.
		{"zero throughput", good, repeat(3, 0), "confidence: mean of throughput is 0; a width in percent is undefined", 2},
		// Named metrics appear in the messages.
		{"named zero mean", with(func(s *ConfidenceSpec) { s.Names = []string{"rate", "cpu"} }),
			[][]float64{{5, 1}, {5, -1}}, "confidence: mean of cpu is 0; a width in percent is undefined", 2},
		{"no values", good, [][]float64{{}}, "confidence: iteration 1 returned no values", 0},
		{"metric count changes", good, [][]float64{{1, 2}, {1}}, "confidence: iteration 2 returned 1 values, but earlier iterations returned 2", 1},
		{"NaN value", good, [][]float64{{1, 2}, {1, math.NaN()}}, "confidence: iteration 2: metric 1 is NaN", 1},
		{"Inf headline", good, [][]float64{{math.Inf(1)}}, "confidence: iteration 1: throughput is +Inf", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.iters < 0 {
				if err := tc.spec.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Validate() = %v, want error containing %q", err, tc.want)
				}
			}
			c, err := RunConfidence(tc.spec, script(t, tc.rows, 0, nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("RunConfidence error = %v, want one containing %q", err, tc.want)
			}
			if tc.iters < 0 {
				if c != nil {
					t.Errorf("invalid spec returned a result %+v", c)
				}
				return
			}
			if c == nil || c.Iterations != tc.iters {
				t.Errorf("partial result %+v, want %d iterations", c, tc.iters)
			}
		})
	}
	if _, err := RunConfidence(good, nil); err == nil {
		t.Error("nil iterate accepted")
	}
	if err := good.Validate(); err != nil {
		t.Errorf("good spec rejected: %v", err)
	}
}

func ExampleRunConfidence() {
	// Three iterations of a TCP_RR test; metric 1 is local CPU, not measured.
	rates := []float64{196599.632932, 200704.397978, 197639.905042}
	spec := ConfidenceSpec{Level: 95, Width: 10, Min: 3, Max: 10, Names: []string{"throughput", "local CPU"}}
	c, err := RunConfidence(spec, func(i int) ([]float64, error) {
		return []float64{rates[i-1], 0}, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.2f after %d iterations, width %.3f%% (cpu %.3f%%), met %v\n",
		c.Intervals[0].Mean, c.Iterations, c.Widths[0], c.Widths[1], c.Met)
	// Output: 198314.65 after 3 iterations, width 5.346% (cpu 0.000%), met true
}
