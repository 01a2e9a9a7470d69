package netperfcli

import (
	"fmt"
	"io"
	"math"

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

// Verbose writes what -v 2 adds after the classic table: the test's block
// of alignments, offsets and counts (for TCP_RR the last iteration's
// latency and throughput each way, for the streams the bytes per call and
// the MSS), then the histogram of every iteration's transaction times. A
// stream's histogram (netperf's of its send or receive calls) has no
// samples: netscript does not time each call.
func (c *Command) Verbose(out io.Writer, f *Figures) {
	title := "Histogram of request/response times"
	switch c.TestName {
	case "TCP_RR":
		rate := f.TransRate
		rt := -1.0
		if rate > 0 {
			rt = 1e6 / rate * float64(1+max(c.Test.Burst, 0))
		}
		saved := c.Format
		if c.Format == 'x' {
			c.Format = 'm'
		}
		fmt.Fprintf(out, "Alignment      Offset         RoundTrip  Trans    Throughput\n"+
			"Local  Remote  Local  Remote  Latency    Rate     %-8.8s/s\n"+
			"Send   Recv    Send   Recv    usec/Tran  per sec  Outbound   Inbound\n"+
			"%5d  %5d   %5d  %5d   %-6.3f   %-6.3f %-6.3f    %-6.3f\n",
			c.unitsWord(), c.SendAlign, c.RemoteRecvOffset, c.SendOffset, c.RemoteRecvOffset, rt, rate,
			c.calcThruput(rate*float64(c.reqSize()), 1), c.calcThruput(rate*float64(c.rspSize()), 1))
		c.Format = saved
	case "TCP_CRR", "TCP_CC":
		ra := c.RemoteRecvAlign
		if c.TestName == "TCP_CC" {
			ra = c.RemoteRecvOffset
		}
		fmt.Fprintf(out, "\nAlignment      Offset\n"+
			"Local  Remote  Local  Remote\n"+
			"Send   Recv    Send   Recv\n"+
			"%5d  %5d   %5d  %5d\n", c.SendAlign, ra, c.SendOffset, c.RemoteRecvOffset)
	case "UDP_RR":
		title = "Histogram of request/reponse times." // sic, netperf's words
	case "TCP_STREAM", "TCP_MAERTS":
		c.streamVerbose(out, f)
		return
	case "UDP_STREAM":
		fmt.Fprint(out, "\nHistogram of time spent in send() call\n")
		decadesOf(nil).report(out)
		return
	default:
		title = "Histogram of " + c.histogramOf() + " times"
	}
	c.histogram(out, f, title)
}

// streamVerbose is TCP_STREAM's and TCP_MAERTS's -v 2 block.
func (c *Command) streamVerbose(out io.Writer, f *Figures) {
	r := f.Last
	rs, _ := c.remoteBytes(f.it)
	if c.TestName == "TCP_STREAM" {
		fmt.Fprintf(out, "\nAlignment      Offset         %-8.8s %-8.8s    Sends   %-8.8s Recvs\n"+
			"Local  Remote  Local  Remote  Xfered   Per                 Per\n"+
			"Send   Recv    Send   Recv             Send (avg)          Recv (avg)\n"+
			"%5d   %5d  %5d   %5d %6d  %6.2f    %6d   %6.2f %6d\n",
			"Bytes", "Bytes", "Bytes", c.SendAlign, c.RemoteRecvAlign, c.SendOffset, c.RemoteRecvOffset,
			r.BytesSent, ratio(r.BytesSent, c.localSendCalls(f)), c.localSendCalls(f),
			ratio(r.BytesSent, c.remoteRecvCalls(f)), c.remoteRecvCalls(f))
	} else {
		fmt.Fprintf(out, "\nAlignment      Offset         %-8.8s %-8.8s    Recvs   %-8.8s Sends\n"+
			"Local  Remote  Local  Remote  Xfered   Per                 Per\n"+
			"Recv   Send    Recv   Send             Recv (avg)          Send (avg)\n"+
			"%5d   %5d  %5d   %5d %6d  %6.2f    %6d   %6.2f %6d\n",
			"Bytes", "Bytes", "Bytes", c.RecvAlign, c.RemoteRecvAlign, c.RecvOffset, c.RemoteRecvOffset,
			r.BytesReceived, ratio(r.BytesReceived, c.localRecvCalls(f)), int32(c.localRecvCalls(f)),
			ratio(rs, c.remoteSendCalls(f)), int32(c.remoteSendCalls(f)))
	}
	fmt.Fprintf(out, "\nMaximum\nSegment\nSize (bytes)\n%6d\n", c.transportMSS(f))
	what := "send"
	if c.TestName == "TCP_MAERTS" {
		what = "recv"
	}
	fmt.Fprintf(out, "\n\nHistogram of time spent in %s() call.\n", what)
	decadesOf(nil).report(out)
}

// ratio is n over d as C divides a count by a double (inf for 0 calls).
func ratio(n, d uint64) float64 {
	if d == 0 {
		if n == 0 {
			return math.NaN()
		}
		return math.Inf(1)
	}
	return float64(n) / float64(d)
}

// histogramOf names what an omni test's -v 2 histogram times.
func (c *Command) histogramOf() string {
	switch d := c.Test.Direction & (dirXmit | dirRecv); {
	case d == dirRecv:
		return "recv"
	case d == dirXmit:
		return "send"
	case c.isCC():
		return "connect/close"
	case c.Test.Connection:
		return "connect/request/response/close"
	}
	return "request/response"
}

// histogram writes the blank line, the title and the dump.
func (c *Command) histogram(out io.Writer, f *Figures, title string) {
	fmt.Fprintf(out, "\n%s\n", title)
	decadesOf(f.Hist).report(out)
}
