package workload

import (
	"testing"
	"time"
)

// TestInterimFinal: the last, partial interval is kept when it is long
// enough to mean something or when work was done in it, so the samples
// always add up to the whole test; an empty sliver is left out.
func TestInterimFinal(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name     string
		lastAt   time.Duration // the last boundary sample
		lastN    uint64
		end      time.Duration
		count    uint64
		wantKept bool
	}{
		{"long tail", 800 * ms, 80, 1000 * ms, 100, true},
		{"long tail, no work", 800 * ms, 80, 1000 * ms, 80, true},
		{"short tail with work", 995 * ms, 99, 1000 * ms, 100, true},
		{"short tail, no work", 995 * ms, 100, 1000 * ms, 100, false},
	} {
		iv := NewInterim(200*ms, time.Second)
		iv.add(c.lastAt, c.lastN)
		iv.final(c.end, c.count)
		s := iv.Samples()
		if kept := len(s) == 2; kept != c.wantKept {
			t.Errorf("%s: %d samples, want the final one kept %v", c.name, len(s), c.wantKept)
		}
		if got := s[len(s)-1].Count; got != c.count {
			t.Errorf("%s: the samples reach %d of %d", c.name, got, c.count)
		}
	}
}
