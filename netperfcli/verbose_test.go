package netperfcli

import (
	"bytes"
	"strings"
	"testing"

	"netscript/engine/hist"
	"netscript/engine/result"
)

// TestDecades checks where netperf's -v 2 dump counts a time: the decade
// row and the column of its whole microseconds.
func TestDecades(t *testing.T) {
	for _, tc := range []struct {
		ns       int64
		row, col int // row -1: >100_SECS
	}{
		{0, 0, 0},
		{999, 0, 0},
		{1000, 0, 1},
		{9999, 0, 9},
		{10_000, 1, 1},
		{19_999, 1, 1},
		{99_999, 1, 9},
		{100_000, 2, 1},
		{5_500_000, 3, 5},
		{250e6, 5, 2},
		{1_500_000_000, 6, 1},
		{99e9, 7, 9},
		{100e9, -1, 0},
		{hist.MaxTracked + 1, -1, 0},
	} {
		h := hist.New()
		h.Record(tc.ns)
		d := decadesOf(h)
		var want decades
		want.total = 1
		if tc.row < 0 {
			want.over = 1
		} else {
			want.rows[tc.row][tc.col] = 1
		}
		if *d != want {
			t.Errorf("%d ns: got %+v, want row %d column %d", tc.ns, *d, tc.row, tc.col)
		}
	}
}

// TestDecadesSumIterations checks that the dump counts every iteration's
// times, as netperf's histogram is not reset between iterations.
func TestDecadesSumIterations(t *testing.T) {
	var rs []*result.Result
	for i := range 3 {
		h := hist.New()
		for range 10 {
			h.Record(int64(i+1) * 20_000) // 20, 40, 60 µs
		}
		rs = append(rs, &result.Result{Hist: h, Throughput: 1})
	}
	c, err := Parse([]string{"-t", "TCP_RR", "-v", "2"})
	if err != nil {
		t.Fatal(err)
	}
	f := c.figures(rs)
	var out bytes.Buffer
	c.histogram(&out, f, "Histogram of request/response times")
	want := "\nHistogram of request/response times\n" +
		"UNIT_USEC     :    0:    0:    0:    0:    0:    0:    0:    0:    0:    0\n" +
		"TEN_USEC      :    0:    0:   10:    0:   10:    0:   10:    0:    0:    0\n"
	if got := out.String(); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, ">100_SECS: 0\nHIST_TOTAL:      30\n") {
		t.Errorf("got\n%s", got)
	}
}
