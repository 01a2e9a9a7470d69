package netperfcli

import (
	"fmt"
	"io"

	"netscript/engine/hist"
)

// decadeNames are the rows of netperf's histogram dump: each holds the
// times of one decade of microseconds, in ten columns.
var decadeNames = [8]string{"UNIT_USEC", "TEN_USEC", "HUNDRED_USEC", "UNIT_MSEC", "TEN_MSEC", "HUNDRED_MSEC", "UNIT_SEC", "TEN_SEC"}

// decades is netperf's -v 2 histogram: rows[k][j] counts the times of
// j·10^k up to (j+1)·10^k microseconds in decade k (1 µs, 10 µs, … 10 s),
// over the times of 100 s and more, total every time.
type decades struct {
	rows  [8][10]uint64
	over  uint64
	total uint64
}

// usecCell returns the row and column netperf counts a time of us whole
// microseconds in (row -1: 100 s or more). Row 0 holds 0–9 µs, and in
// every other row k column 0 stays empty, as in netperf: a time below
// 10^k µs belongs to an earlier row.
func usecCell(us int64) (row, col int) {
	d := int64(1)
	for k := range 8 {
		if us < 10*d {
			return k, int(us / d)
		}
		d *= 10
	}
	return -1, 0
}

// decadesOf re-bins h (nanoseconds) into netperf's decades, on netperf's
// whole microseconds (truncated, as netperf's gettimeofday deltas are).
//
// A bucket of h is at most 1/128 of its values wide, while a netperf column
// is a tenth of its decade (1 µs in the first row), so a bucket is narrower
// than the column it falls in and meets at most two. A bucket straddling a
// column boundary (such as the one around 1 s, 2^22 ns wide) is counted
// whole in the column holding its midpoint, clamped to the samples' min and
// max, the value h reports for it: only times within half a bucket
// (0.39 %) of a boundary can land in the neighbouring column.
func decadesOf(h *hist.Histogram) *decades {
	d := &decades{}
	if h == nil {
		return d
	}
	h.Buckets(func(lo, hi int64, n uint64) {
		v := min(max(lo+(hi-lo)/2, h.Min()), h.Max())
		d.total += n
		if row, col := usecCell(v / 1000); row >= 0 {
			d.rows[row][col] += n
		} else {
			d.over += n
		}
	})
	return d
}

// report writes the dump in netperf's HIST_report layout.
func (d *decades) report(out io.Writer) {
	for k, name := range decadeNames {
		fmt.Fprintf(out, "%-14s", name)
		for _, n := range d.rows[k] {
			fmt.Fprintf(out, ": %4d", n)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, ">100_SECS: %d\n", d.over)
	fmt.Fprintf(out, "HIST_TOTAL:      %d\n", d.total)
}

// netperf's default alignment and offset of its buffers, which its -v 2
// block prints (netscript does not align its buffers, and -a/-o are
// refused, so netperf's defaults are what a run of it would show). TCP_RR
// and TCP_CC print the remote receive offset where the remote alignment
// goes.
const (
	bufAlign  = 8
	bufOffset = 0
)

// Verbose writes what -v 2 adds after the classic table: the test's block
// of alignments (and, for TCP_RR, the last iteration's latency and
// throughput each way), then the histogram of every iteration's
// transaction times.
func (c *Command) Verbose(out io.Writer, f *Figures) {
	title := "Histogram of request/response times"
	switch c.Test.Netperf {
	case "TCP_RR":
		rate := f.Last.Throughput
		rt := -1.0
		if rate > 0 {
			rt = 1e6 / rate * float64(1+c.Burst)
		}
		units := "10^6bits"
		if c.band() {
			units = c.unitsWord()
		}
		fmt.Fprintf(out, "Alignment      Offset         RoundTrip  Trans    Throughput\n"+
			"Local  Remote  Local  Remote  Latency    Rate     %-8.8s/s\n"+
			"Send   Recv    Send   Recv    usec/Tran  per sec  Outbound   Inbound\n"+
			"%5d  %5d   %5d  %5d   %-6.3f   %-6.3f %-6.3f    %-6.3f\n",
			units, bufAlign, bufOffset, bufOffset, bufOffset, rt, rate,
			c.bitsIn(rate*float64(c.reqSize(f))*8), c.bitsIn(rate*float64(c.rspSize(f))*8))
	case "TCP_CRR", "TCP_CC":
		ra := bufAlign
		if c.Test.Netperf == "TCP_CC" {
			ra = bufOffset
		}
		fmt.Fprintf(out, "\nAlignment      Offset\n"+
			"Local  Remote  Local  Remote\n"+
			"Send   Recv    Send   Recv\n"+
			"%5d  %5d   %5d  %5d\n", bufAlign, ra, bufOffset, bufOffset)
	case "UDP_RR":
		title = "Histogram of request/reponse times." // sic, netperf's words
	}
	c.histogram(out, f, title)
}

// histogram writes the blank line, the title and the dump.
func (c *Command) histogram(out io.Writer, f *Figures, title string) {
	fmt.Fprintf(out, "\n%s\n", title)
	decadesOf(f.Hist).report(out)
}

// bitsIn converts bits per second to the units of -f, in megabits for
// -f x (netperf's -v 2 block reports bits even then).
func (c *Command) bitsIn(bits float64) float64 {
	switch c.Format {
	case 'k':
		return bits / 1e3
	case 'g':
		return bits / 1e9
	case 'K':
		return bits / 8 / (1 << 10)
	case 'M':
		return bits / 8 / (1 << 20)
	case 'G':
		return bits / 8 / (1 << 30)
	}
	return bits / 1e6
}
