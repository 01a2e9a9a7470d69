package main

import (
	"strings"
	"testing"
)

// TestCheckArgs: a typo in -only, no rounds or no seconds is refused with
// the flag named, instead of an empty table.
func TestCheckArgs(t *testing.T) {
	for _, tc := range []struct {
		only   string
		rounds int
		secs   float64
		want   string // "" for accepted
	}{
		{"", 5, 3, ""},
		{"tcp_rr,udp_rr", 5, 3, ""},
		{"flows", 1, 0.5, ""},
		{"stream-flows,tcp_stream", 3, 2, ""},
		{"tcp_crr,tcp_crr tcp_info=True", 3, 2, ""}, // a row of an option, by its label
		{"stream_flows", 3, 2, `-only: no row "stream_flows"`},
		{"tcp-rr", 5, 3, `-only: no row "tcp-rr"`},
		{"tcp_rr,", 5, 3, `-only: no row ""`},
		{"tcp_rr", 0, 3, "-rounds 0"},
		{"tcp_rr", 5, 0, "-seconds 0"},
		{"tcp_rr", 5, -1, "-seconds -1"},
	} {
		err := checkArgs(tc.only, tc.rounds, tc.secs)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("checkArgs(%q, %d, %g) = %v, want nil", tc.only, tc.rounds, tc.secs, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("checkArgs(%q, %d, %g) = %v, want %q", tc.only, tc.rounds, tc.secs, err, tc.want)
		}
	}
}

// TestMainRows: the main table's header is printed only when -only selects
// one of its workloads.
func TestMainRows(t *testing.T) {
	for only, want := range map[string]bool{"": true, "tcp_rr": true, "flows,tcp_maerts": true, "flows": false, "stream-flows": false,
		"tcp_crr tcp_info=True": true} {
		if got := mainRows(only); got != want {
			t.Errorf("mainRows(%q) = %v, want %v", only, got, want)
		}
	}
}
