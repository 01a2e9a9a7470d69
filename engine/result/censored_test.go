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
