package result

import (
	"strings"
	"testing"
	"time"
)

// TestCensoredNoteOnlyWhenAStallExceedsTheCompleted: the note appears when
// the oldest unanswered transaction is older than the slowest completed one,
// and not otherwise.
func TestCensoredNoteOnlyWhenAStallExceedsTheCompleted(t *testing.T) {
	for _, c := range []struct {
		name string
		c    *Censored
		l    *Latency
		note bool
	}{
		{"none in flight", &Censored{}, &Latency{Max: 100}, false},
		{"younger than the max", CensoredOf(50*time.Microsecond, 80*time.Microsecond), &Latency{Max: 100}, false},
		{"older than the max", CensoredOf(300*time.Millisecond, 300*time.Millisecond), &Latency{Max: 4000}, true},
		{"nothing completed", CensoredOf(time.Millisecond, time.Millisecond), nil, true},
		{"no censored", nil, &Latency{Max: 1}, false},
	} {
		got := CensoredNote(c.c, c.l)
		if (got != "") != c.note || (c.note && !strings.Contains(got, "see censored")) {
			t.Errorf("%s: note %q", c.name, got)
		}
	}
	m := &Censored{}
	m.Merge(CensoredOf(2*time.Millisecond, 3*time.Millisecond))
	m.Merge(CensoredOf(5*time.Millisecond, 5*time.Millisecond))
	m.Merge(nil)
	if m.Oldest != 5000 || m.Sum != 8000 {
		t.Errorf("merged %+v, want oldest 5000 sum 8000", m)
	}
}

// TestAggregateMergesCensored: aggregate() keeps the oldest of the results'
// censored transactions and sums their ages; streams (nil) stay nil.
func TestAggregateMergesCensored(t *testing.T) {
	a, b := rr("TCP_RR", 100, 10, 20000, 0.001), rr("TCP_RR", 100, 10, 20000, 0.001)
	a.Censored, b.Censored = &Censored{Oldest: 300, Sum: 400}, &Censored{Oldest: 500, Sum: 500}
	agg, err := Aggregate([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if agg.Censored == nil || agg.Censored.Oldest != 500 || agg.Censored.Sum != 900 {
		t.Errorf("censored %+v, want oldest 500, sum 900", agg.Censored)
	}
	a.Censored, b.Censored = nil, nil
	if agg, _ := Aggregate([]*Result{a, b}); agg.Censored != nil {
		t.Errorf("censored %+v from results without", agg.Censored)
	}
}
