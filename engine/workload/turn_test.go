package workload

import (
	"testing"
	"time"
)

// TestTurn drives a turn on a made-up clock at steady rates and checks the
// two things it is for: a turn at least every yieldEvery plus a little
// (always before the runtime's 10 ms), and the clock read about once per
// checkEvery whatever the rate, not once per unit of work.
func TestTurn(t *testing.T) {
	for _, tc := range []struct {
		name string
		unit time.Duration // one unit of work
	}{
		{"same-cpu rr", 6 * time.Microsecond},
		{"fast", 500 * time.Nanosecond},
		{"cross-cpu rr", 100 * time.Microsecond},
		{"slow", 3 * time.Millisecond},
		{"paced", 20 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var now time.Duration
			reads, turns := 0, 0
			last := tc.unit // the first unit starts the turns
			var worst time.Duration
			tr := turn{
				clock: func() time.Duration { reads++; return now },
				yield: func() {
					turns++
					worst = max(worst, now-last)
					last = now
				},
			}
			const span = 2 * time.Second
			for now < span {
				now += tc.unit
				tr.done()
			}
			// the longest stretch without a turn: yieldEvery, plus up to
			// one stride of units (about checkEvery) before the clock is
			// read, plus the unit that crossed
			bound := yieldEvery + 2*checkEvery + tc.unit
			if worst > bound {
				t.Errorf("longest stretch without a turn %v, want at most %v", worst, bound)
			}
			if tc.unit <= yieldEvery && worst >= 10*time.Millisecond {
				t.Errorf("a stretch of %v without a turn: the runtime would have preempted the loop", worst)
			}
			if want := int(span / (yieldEvery + 2*checkEvery + tc.unit)); turns < want {
				t.Errorf("%d turns in %v, want at least %d", turns, span, want)
			}
			units := int(span / tc.unit)
			// reads: once per unit at most, and about one per checkEvery
			// (each turn reads the clock once more)
			maxReads := min(units, int(span/checkEvery)*2) + 2*turns + 8
			if reads > maxReads {
				t.Errorf("%d clock reads for %d units, want at most %d", reads, units, maxReads)
			}
		})
	}
}

// TestTurnSlowdown: when the rate drops a thousandfold, one stride of the
// old rate passes before the clock is read again (the loop cannot know
// sooner), and the stride then follows the new rate at once.
func TestTurnSlowdown(t *testing.T) {
	var now time.Duration
	turns := 0
	var last, worstAfter time.Duration
	settled := false
	tr := turn{
		clock: func() time.Duration { return now },
		yield: func() {
			turns++
			if settled {
				worstAfter = max(worstAfter, now-last)
			}
			last = now
		},
	}
	for now < time.Second {
		now += time.Microsecond
		tr.done()
	}
	if tr.stride < 100 {
		t.Fatalf("stride %d at 1 µs a unit, want about %d", tr.stride, checkEvery/time.Microsecond)
	}
	slowFrom := now
	for now < slowFrom+3*time.Second {
		now += time.Millisecond
		tr.done()
		if !settled && tr.stride == 1 {
			settled = true
			last = now
		}
	}
	if !settled {
		t.Fatalf("the stride stayed %d after the rate fell to 1 ms a unit", tr.stride)
	}
	if bound := yieldEvery + 2*time.Millisecond; worstAfter > bound {
		t.Errorf("after the slowdown the longest stretch without a turn was %v, want at most %v", worstAfter, bound)
	}
}

// TestTurnZeroValue: the zero value works with the real clock and gives
// real turns (runtime.Gosched) without a hook.
func TestTurnZeroValue(t *testing.T) {
	var tr turn
	deadline := time.Now().Add(30 * time.Millisecond)
	for time.Now().Before(deadline) {
		tr.done()
	}
	if tr.stride == 0 || tr.base.IsZero() {
		t.Fatalf("turn not started: %+v", tr)
	}
}
