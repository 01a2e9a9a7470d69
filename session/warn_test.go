package session

import "testing"

// TestWarnedOnce: warnings that differ only in their counts are one cause.
func TestWarnedOnce(t *testing.T) {
	var w warnedSet
	for _, c := range []struct {
		text  string
		first bool
	}{
		{"tcp_crr: 0 of 343 accepted", true},
		{"tcp_crr: 0 of 1078 accepted", false},
		{"tcp_crr: 12 of 9 accepted", false},
		{"tcp_crr: the client's kernel lacks bit 1", true},
		{"udp_rr: 0 of 343 accepted", true},
	} {
		if got := w.first(c.text); got != c.first {
			t.Errorf("%q: first %v, want %v", c.text, got, c.first)
		}
	}
}
