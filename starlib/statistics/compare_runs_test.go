package statistics_test

import (
	"strings"
	"testing"
)

// TestCompareWarnsBelowMinRuns: compare() with fewer runs than its
// false-positive rate needs says so on stderr, with where it was called,
// once however often a loop calls it; from the minimum on it says nothing.
func TestCompareWarnsBelowMinRuns(t *testing.T) {
	got, _ := runCaptured(t, "for i in range(3):\n    c = compare(seq(1, 2), seq(3, 4), runs=2 + i % 2)")
	want := "netscript: warning: compare() at warn.star:"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "runs=2: with fewer than 5 runs each") ||
		strings.Count(got, "\n") != 1 {
		t.Errorf("runs=2: stderr %q, want one line starting %q", got, want)
	}
	if got, _ := runCaptured(t, `c = compare(seq(1, 2), seq(3, 4), runs=5)`); got != "" {
		t.Errorf("runs=5: stderr %q, want nothing", got)
	}
}
