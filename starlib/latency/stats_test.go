package latency

import (
	"math"
	"testing"
	"time"

	"netscript/engine/hist"
)

func TestTrimmedMean(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(i + 1)
	}
	for _, c := range []struct {
		name string
		xs   []float64
		keep float64
		want float64
	}{
		{"none", nil, 0.95, math.NaN()},
		{"one", []float64{7}, 0.95, 7},
		{"the slowest 5 of 100 left out", hundred, 0.95, 48},
		{"unsorted", []float64{100, 1, 2, 3}, 0.75, 2},
		{"all kept", []float64{1, 2, 3}, 1, 2},
	} {
		got := trimmedMean(c.xs, c.keep)
		if !(got == c.want || (math.IsNaN(got) && math.IsNaN(c.want))) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestHistTrimmedMean(t *testing.T) {
	if got := histTrimmedMean(hist.New(), 0.95); !math.IsNaN(got) {
		t.Errorf("empty: %v, want NaN", got)
	}
	h := hist.New()
	for range 95 {
		h.Record(int64(10 * time.Millisecond))
	}
	for range 5 {
		h.Record(int64(time.Second)) // the slowest 5 %: left out
	}
	if got := histTrimmedMean(h, 0.95); math.Abs(got-10) > 0.1 {
		t.Errorf("95 at 10 ms and 5 at 1 s: %v ms, want 10", got)
	}
	if got := histTrimmedMean(h, 1); math.Abs(got-59.5) > 1 {
		t.Errorf("all kept: %v ms, want 59.5", got)
	}
}

func TestStable(t *testing.T) {
	for _, c := range []struct {
		name string
		xs   []float64
		want bool
	}{
		{"fewer than MAD", []float64{10, 10, 10}, false},
		{"flat", []float64{1, 10, 10, 10, 10}, true},
		{"within 5 %", []float64{100, 102, 98, 101}, true},
		{"rising", []float64{10, 20, 30, 40}, false},
		{"only the last MAD count", []float64{1, 1000, 50, 50, 50, 50}, true},
		{"zero", []float64{0, 0, 0, 0}, false},
	} {
		if got := stable(c.xs, draftMAD, draftSDT); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRPMAndConfidence(t *testing.T) {
	if got := rpm(100); got != 600 {
		t.Errorf("rpm(100 ms) = %v, want 600", got)
	}
	if got := rpm(0); !math.IsNaN(got) {
		t.Errorf("rpm(0) = %v, want NaN", got)
	}
	for _, c := range []struct {
		n      int
		stable bool
		want   string
	}{{3, false, "Low"}, {4, false, "Medium"}, {9, true, "High"}, {2, true, "High"}} {
		if got := confidence(c.n, c.stable); got != c.want {
			t.Errorf("confidence(%d, %v) = %s, want %s", c.n, c.stable, got, c.want)
		}
	}
	for _, c := range []struct {
		rpm  float64
		want string
	}{{math.NaN(), "unknown"}, {299, "Low"}, {300, "Medium"}, {999, "Medium"}, {1000, "High"}} {
		if got := rating(c.rpm); got != c.want {
			t.Errorf("rating(%v) = %s, want %s", c.rpm, got, c.want)
		}
	}
}
