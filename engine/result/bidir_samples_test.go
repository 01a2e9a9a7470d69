package result

import (
	"math"
	"testing"
)

// TestSumSamplesLateSender: under load a sender's last sample ends at its
// last send, past the deadline, and the receiver sampled once more before
// the deadline: the sum's times stay in order and keep every byte.
func TestSumSamplesLateSender(t *testing.T) {
	tx := []Sample{{T: 0.1, Interval: 0.1, Throughput: 10}, {T: 0.2, Interval: 0.1, Throughput: 10},
		{T: 0.756, Interval: 0.556, Throughput: 5}}
	rx := []Sample{{T: 0.1, Interval: 0.1, Throughput: 20}, {T: 0.2, Interval: 0.1, Throughput: 20},
		{T: 0.3, Interval: 0.1, Throughput: 20}, {T: 0.4, Interval: 0.1, Throughput: 20}}
	got := sumSamples(tx, rx)
	if len(got) != 3 || got[0].T != 0.1 || got[1].T != 0.2 || got[2].T != 0.756 {
		t.Fatalf("samples %+v: want tx's three times", got)
	}
	work := func(ss []Sample) (w float64) {
		for _, s := range ss {
			w += s.Throughput * s.Interval
		}
		return w
	}
	if w, want := work(got), work(tx)+work(rx); math.Abs(w-want) > 1e-9 {
		t.Errorf("work %v, want %v", w, want)
	}
}
