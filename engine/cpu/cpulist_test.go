package cpu

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"0", []int{0}, ""},                              // one CPU
		{"0-1\n", []int{0, 1}, ""},                       // /sys form with newline
		{"0-1,4", []int{0, 1, 4}, ""},                    // range and single
		{"0-2,4-5,8", []int{0, 1, 2, 4, 5, 8}, ""},       // several ranges
		{"3,1,2-2,1", []int{1, 2, 3}, ""},                // unsorted, duplicate, one-wide range
		{"65535", []int{65535}, ""},                      // the largest accepted
		{"", nil, "empty"},                               // nothing
		{" \n", nil, "empty"},                            // only space
		{"1-0", nil, "runs backwards"},                   // reversed
		{"0-", nil, "missing CPU number"},                // open range
		{",1", nil, "missing CPU number"},                // empty item
		{"a", nil, "not a CPU number"},                   // letters
		{"-1", nil, "missing CPU number"},                // negative
		{"+1", nil, "not a CPU number"},                  // sign
		{"0-7:2", nil, "not a CPU number"},               // stride form
		{"65536", nil, "out of range"},                   // too large
		{"0-65535,0-65535", nil, "more than 65536 CPUs"}, // size bound counts before dedupe
		{"99999999999999999999", nil, "out of range"},    // overflow
		{"0 - 1", nil, "not a CPU number"},               // inner spaces
		{"0-1-2", nil, "not a CPU number"},               // two dashes
	}
	for _, tc := range tests {
		got, err := ParseCPUList(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseCPUList(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestFormatCPUList(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{0}, "0"},
		{[]int{0, 1}, "0-1"},
		{[]int{0, 1, 4}, "0-1,4"},
		{[]int{4, 0, 1, 1, 2, 7, 8, 9}, "0-2,4,7-9"},
	}
	for _, tc := range tests {
		if got := FormatCPUList(tc.in); got != tc.want {
			t.Errorf("FormatCPUList(%v) = %q, want %q", tc.in, got, tc.want)
		}
		if tc.want == "" {
			continue
		}
		if back, err := ParseCPUList(tc.want); err != nil || FormatCPUList(back) != tc.want {
			t.Errorf("round trip of %q: %v, %v", tc.want, back, err)
		}
	}
}

// TestNoSuchCPUErrorText checks both messages, including the offline one
// that a test cannot provoke without taking a CPU of a shared machine down.
func TestNoSuchCPUErrorText(t *testing.T) {
	tests := []struct {
		err  NoSuchCPUError
		want string
	}{
		{NoSuchCPUError{CPU: 7, Online: []int{0, 1}}, "cpu 7 does not exist: this machine has CPUs 0-1"},
		{NoSuchCPUError{CPU: 3, Offline: true, Online: []int{0, 1, 2, 4}}, "cpu 3 is offline: the online CPUs are 0-2,4"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}
