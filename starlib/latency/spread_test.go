package latency

import (
	"testing"
	"time"
)

// TestSpread: a sample's bytes go to the intervals its span overlaps, each
// its share by time; what falls before the run's start is not counted.
func TestSpread(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, c := range []struct {
		name      string
		end, span time.Duration
		want      []float64 // bytes in intervals 0, 1, 2 of 500 ms
	}{
		{"inside one", ms(400), ms(100), []float64{1000, 0, 0}},
		{"straddling a boundary", ms(600), ms(200), []float64{500, 500, 0}},
		{"over a whole interval", ms(1100), ms(1000), []float64{400, 500, 100}},
		{"ending on a boundary", ms(1000), ms(500), []float64{0, 1000, 0}},
		{"before the start", ms(100), ms(200), []float64{500, 0, 0}},
		{"no span", ms(700), 0, []float64{0, 1000, 0}},
	} {
		t0 := time.Now()
		run := &rpmRun{cfg: &rpmConfig{id: ms(500)}, t0: t0}
		run.spread(t0.Add(c.end), c.span, 1000, true)
		run.spread(t0.Add(c.end), c.span, 10, false)
		for i, want := range c.want {
			var up, down float64
			if i < len(run.intervals) {
				up, down = run.intervals[i].upBytes, run.intervals[i].downBytes
			}
			if d := up - want; d > 1e-6 || d < -1e-6 || down*100-want > 1e-4 || want-down*100 > 1e-4 {
				t.Errorf("%s: interval %d has %v up, %v down; want %v, %v", c.name, i, up, down, want, want/100)
			}
		}
	}
}
