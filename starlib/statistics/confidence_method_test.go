package statistics_test

import (
	"strings"
	"testing"
)

// TestTwoStageWarningSaysThePlan: a two_stage plan larger than max is
// warned about with the plan, and without the netperf rule's sentence on
// coverage, which is not its problem: 99, 101, 100 have s = 1, and a
// half-width of 0.05 at t(95 %, 2) = 4.3027 needs ⌈(4.3027 / 0.05)²⌉ = 7406.
func TestTwoStageWarningSaysThePlan(t *testing.T) {
	got, _ := runCaptured(t, `c = confidence(seq(99, 101, 100), level=95, width=0.1, min=3, max=5, method="two_stage")`)
	if !strings.Contains(got, "!!! The first stage's 3 iterations called for 7406 in all; max is 5.\n") || strings.Contains(got, "covers") {
		t.Errorf("stderr:\n%s", got)
	}
}
