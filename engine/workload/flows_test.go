package workload

import (
	"strings"
	"testing"
	"time"
)

// TestPortWalk: ports come one after another, wrap from hi to lo, and skip
// the server's port, as netperf's pick_next_port_number does.
func TestPortWalk(t *testing.T) {
	for _, c := range []struct {
		name                string
		lo, hi, start, skip int
		want                []int
	}{
		{"in order from the start", 5000, 5009, 5003, 0, []int{5003, 5004, 5005}},
		{"wraps at hi", 5000, 5002, 5001, 0, []int{5001, 5002, 5000, 5001}},
		{"skips the server's port", 5000, 5003, 5000, 5001, []int{5000, 5002, 5003, 5000, 5002}},
		{"a start outside the range begins at lo", 5000, 5002, 9, 0, []int{5000, 5001}},
		{"one port that is the skipped one is still given", 7, 7, 7, 7, []int{7, 7}},
	} {
		w := NewPortWalk(c.lo, c.hi, c.start, c.skip)
		for i, want := range c.want {
			if got := w.Next(); got != want {
				t.Errorf("%s: port %d is %d, want %d", c.name, i, got, want)
			}
		}
	}
}

// TestWalkStart: flows start evenly spread over the range, each inside it.
func TestWalkStart(t *testing.T) {
	seen := map[int]bool{}
	for i := 0; i < 16; i++ {
		p := WalkStart(10000, 10159, i, 16)
		if p < 10000 || p > 10159 || seen[p] {
			t.Fatalf("flow %d starts at %d", i, p)
		}
		seen[p] = true
		if p != 10000+10*i {
			t.Errorf("flow %d starts at %d, want %d", i, p, 10000+10*i)
		}
	}
	if p := WalkStart(1, 3, 5, 16); p < 1 || p > 3 {
		t.Errorf("a range smaller than the flows: %d", p)
	}
}

// TestWaitUntil: the wait ends at the instant, not before, and a stop ends
// it early.
func TestWaitUntil(t *testing.T) {
	t0 := time.Now().Add(20 * time.Millisecond)
	WaitUntil(t0, nil)
	if now := time.Now(); now.Before(t0) {
		t.Fatalf("woke %v early", t0.Sub(now))
	}
	start := time.Now()
	WaitUntil(start.Add(time.Hour), func() bool { return true })
	if time.Since(start) > 10*time.Second { // a hang guard: the wait is an hour
		t.Fatal("a stop did not end the wait")
	}
}

// TestNeedFDs: a count that fits passes; one beyond the hard limit is an
// error that gives the numbers and the remedy.
func TestNeedFDs(t *testing.T) {
	if err := NeedFDs(10, "10 flows"); err != nil {
		t.Fatal(err)
	}
	err := NeedFDs(1<<40, "a great many flows")
	if err == nil {
		t.Fatal("no error for more descriptors than any limit")
	}
	for _, want := range []string{"a great many flows need", "file descriptors", "ulimit -n"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
