package workload

import (
	"testing"
	"time"

	"netscript/engine/sock"
)

// TestQuietIsMeasuredOnTheClock: an interrupted wait (EINTR a few ms into
// it) is not a quiet tick; only a whole sock.Tick since the end or the last
// datagram after it is.
func TestQuietIsMeasuredOnTheClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var q quiet
	if q.ending() || q.over(t0.Add(time.Hour)) {
		t.Fatal("quiet before the end was marked")
	}
	q.heard(t0) // before the end: not a restart of the quiet period
	q.start(t0)
	q.start(t0.Add(time.Second)) // the first end counts
	for _, c := range []struct {
		at   time.Duration
		want bool
	}{{0, false}, {19 * time.Millisecond, false}, {sock.Tick - 1, false}, {sock.Tick, true}} {
		if got := q.over(t0.Add(c.at)); got != c.want {
			t.Errorf("over at +%v = %v, want %v", c.at, got, c.want)
		}
	}
	q.heard(t0.Add(40 * time.Millisecond))
	if q.over(t0.Add(sock.Tick)) || !q.over(t0.Add(40*time.Millisecond+sock.Tick)) {
		t.Error("a datagram after the end does not restart the quiet period")
	}
}
